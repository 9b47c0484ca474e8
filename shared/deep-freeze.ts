// Freezes a value and everything in it. Used where one object is shared for good: a
// connection's process tree (main/os/peer.ts, main/ssh) and the parsed copy the history
// store keeps of it (main/store/store.ts processJson), which is serialised only once
// because nothing may change it afterwards.
export function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object') {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

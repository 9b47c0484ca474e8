// Two keys in one JSON object that another parser may read differently from ours. JSON.parse
// keeps the last of a duplicated key; other parsers keep the first or fail, and Go's
// encoding/json (MCP servers and clients are written with it) matches a struct's fields
// ignoring case, the last match winning. So `{"id":1,"id":2}`, `{"method":"ping",
// "Method":"tools/call"}` or `"params":{"name":"read_file","Name":"write_file"}` could be
// judged as one message and acted on as another. The proxy refuses such a message in either
// direction (proxy.ts): re-serialising what we parsed would settle duplicates, but not keys
// that differ only in case, which survive it.

/** How deep (objects inside objects) keys that differ only in case are looked for: the message, and its params/result/error. */
const CASE_DEPTH = 2;

/** Go's EqualFold, near enough: `K` (Kelvin) and `k`, `ſ` and `s` fold together too. */
const fold = (k: string) => k.toUpperCase().toLowerCase();

interface Level {
  keys: Set<string> | null;
  folded: Map<string, string> | null;
}

/**
 * Why `text` (JSON that JSON.parse accepted) may read as another message elsewhere: a key
 * twice in one object (as parsers read keys: `"id"` and `"i\u0064"` are one), or two keys
 * that differ only in case in the top two levels; null when neither.
 */
export function keyClash(text: string): string | null {
  const stack: Level[] = [];
  let objects = 0;
  let expectKey = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // The string's closing quote: the next one not escaped by an odd run of backslashes.
      let j = i;
      for (;;) {
        j = text.indexOf('"', j + 1);
        if (j < 0) return null; // not JSON: JSON.parse refused it already
        let b = 0;
        while (text.charCodeAt(j - 1 - b) === 0x5c) b++;
        if (b % 2 === 0) break;
      }
      const top = stack[stack.length - 1];
      if (expectKey && top?.keys) {
        const raw = text.slice(i + 1, j);
        const key = raw.includes('\\') ? (JSON.parse(text.slice(i, j + 1)) as string) : raw;
        if (top.keys.has(key)) return `the key ${JSON.stringify(key.slice(0, 80))} is there twice`;
        top.keys.add(key);
        if (top.folded) {
          const f = fold(key);
          const other = top.folded.get(f);
          if (other !== undefined) return `the keys ${JSON.stringify(other.slice(0, 80))} and ${JSON.stringify(key.slice(0, 80))} differ only in case`;
          top.folded.set(f, key);
        }
        expectKey = false;
      }
      i = j;
    } else if (c === 0x7b) {
      stack.push({ keys: new Set(), folded: objects < CASE_DEPTH ? new Map() : null });
      objects++;
      expectKey = true;
    } else if (c === 0x5b) {
      stack.push({ keys: null, folded: null });
      expectKey = false;
    } else if (c === 0x7d || c === 0x5d) {
      if (stack.pop()?.keys) objects--;
      expectKey = false;
    } else if (c === 0x2c) {
      expectKey = !!stack[stack.length - 1]?.keys;
    }
  }
  return null;
}

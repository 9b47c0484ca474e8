// JSON.parse as a parser that keeps the FIRST of a duplicated key reads it (JSON.parse keeps
// the last; Go's encoding/json, Python's and JS's keep the last, others the first or fail).
// Tests compare the two readings of what a peer received: they must be the same message.
export function parseKeepingFirst(text: string): unknown {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\r\n'.includes(text[i]!)) i++;
  };
  const value = (): unknown => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const o: Record<string, unknown> = {};
      ws();
      if (text[i] === '}') return i++, o;
      for (;;) {
        ws();
        const k = value() as string;
        ws();
        i++; // ':'
        const v = value();
        if (!Object.prototype.hasOwnProperty.call(o, k)) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
        ws();
        if (text[i++] === '}') return o;
      }
    }
    if (c === '[') {
      i++;
      const a: unknown[] = [];
      ws();
      if (text[i] === ']') return i++, a;
      for (;;) {
        a.push(value());
        ws();
        if (text[i++] === ']') return a;
      }
    }
    // A string, number, true, false or null: the shortest prefix JSON.parse reads as one.
    const start = i;
    if (c === '"') {
      for (i++; text[i] !== '"'; i++) if (text[i] === '\\') i++;
      i++;
    } else {
      while (i < text.length && !',]} \t\r\n'.includes(text[i]!)) i++;
    }
    return JSON.parse(text.slice(start, i)) as unknown;
  };
  JSON.parse(text); // the same syntax errors as JSON.parse
  const v = value();
  return v;
}

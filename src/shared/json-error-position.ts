// Locate the first JSON syntax error (JSC's JSON.parse does not say where): returns a 0-based offset.
export function jsonErrorOffset(text: string): number {
  let i = 0;
  const n = text.length;
  const ws = () => {
    while (i < n && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      ws();
      if (text[i] === "}") return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        str();
        ws();
        if (text[i] !== ":") fail();
        i++;
        value();
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "}") return void i++;
        else fail();
      }
    } else if (c === "[") {
      i++;
      ws();
      if (text[i] === "]") return void i++;
      for (;;) {
        value();
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "]") return void i++;
        else fail();
      }
    } else if (c === '"') str();
    else if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) {
      const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
      if (!m) fail();
      i += m![0].length;
    } else {
      for (const word of ["true", "false", "null"]) if (text.startsWith(word, i)) return void (i += word.length);
      fail();
    }
  };
  const str = () => {
    i++;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 34) return void i++;
      if (c < 0x20) fail();
      if (c === 92) {
        const e = text[i + 1];
        if (e === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail();
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else fail();
      } else i++;
    }
    fail();
  };
  try {
    value();
    ws();
    return i < n ? i : -1;
  } catch (at) {
    return typeof at === "number" ? Math.min(at, n) : 0;
  }
}

/** "line L, column C" for an offset. */
export function describeOffset(text: string, offset: number): string {
  let line = 1;
  let col = 1;
  for (let k = 0; k < offset && k < text.length; k++) {
    if (text[k] === "\n") {
      line++;
      col = 1;
    } else col++;
  }
  return `line ${line}, column ${col}`;
}

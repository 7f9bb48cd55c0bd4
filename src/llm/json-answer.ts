// Pull JSON out of a model's text answer: a fenced block, a <tag> or [tag] block, the whole text, or the
// outermost braces. Every candidate that parses is returned, in that order; the caller validates them.

/** `text` without the commas that stand right before a closing } or ] (outside strings); undefined when it has none. */
function withoutTrailingCommas(text: string): string | undefined {
  let out = "";
  let inString = false;
  let cut = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === "\\") {
        out += c + (text[i + 1] ?? "");
        i++;
        continue;
      }
      if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "," && /^\s*[}\]]/.test(text.slice(i + 1, i + 64))) {
      cut = true;
      continue;
    }
    out += c;
  }
  return cut ? out : undefined;
}

function tryParse(text: string, out: unknown[]): void {
  const t = text.trim();
  if (t === "") return;
  try {
    out.push(JSON.parse(t));
  } catch {
    // A model's JSON with a trailing comma ({"a": [1, 2,],}) is what it meant; anything else is no JSON.
    const fixed = withoutTrailingCommas(t);
    if (fixed === undefined) return;
    try {
      out.push(JSON.parse(fixed));
    } catch {
      // not JSON: skipped
    }
  }
}

export function jsonCandidates(text: string, tag?: string): unknown[] {
  const out: unknown[] = [];
  const fence = /```(?:json|[A-Za-z_-]+)?[ \t]*\n([\s\S]*?)```/g;
  for (const m of text.matchAll(fence)) tryParse(m[1]!, out);
  if (tag) {
    for (const m of text.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, "g"))) {
      const inner = m[1]!;
      const fenced = /```(?:json)?[ \t]*\n([\s\S]*?)```/.exec(inner);
      tryParse(fenced ? fenced[1]! : inner, out);
    }
    for (const m of text.matchAll(new RegExp(`\\[${tag}\\]([\\s\\S]*?)\\[/${tag}\\]`, "g"))) tryParse(m[1]!, out);
  }
  tryParse(text, out);
  const first = text.indexOf("{");
  const last = text.lastIndexOf("}");
  if (first >= 0 && last > first) tryParse(text.slice(first, last + 1), out);
  return out;
}

// Pull JSON out of a model's text answer: a fenced block, a <tag> or [tag] block, the whole text, or the
// outermost braces. Every candidate that parses is returned, in that order; the caller validates them.

function tryParse(text: string, out: unknown[]): void {
  const t = text.trim();
  if (t === "") return;
  try {
    out.push(JSON.parse(t));
  } catch {
    // not JSON: skipped
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

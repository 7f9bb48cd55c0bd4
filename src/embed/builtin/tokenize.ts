// Tokens for the builtin embedder: NFKC lower-cased words, and CJK runs kept whole (embedded as char n-grams).
const TOKEN = /([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\uac00-\ud7af]+)|[\p{L}\p{N}]+/gu;

export interface Token {
  text: string;
  cjk: boolean;
}

export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  for (const m of text.normalize("NFKC").toLowerCase().matchAll(TOKEN))
    out.push({ text: m[0], cjk: m[1] !== undefined });
  return out;
}

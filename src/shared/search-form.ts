// The indexed form of text: CJK runs become overlapping bigrams (+ the run's last character) so that
// any CJK substring of 1+ characters can be found with a unicode61 FTS5 index; other text is unchanged.
export const CJK_RUN = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\uac00-\ud7af]+/g;

export function cjkBigrams(run: string): string[] {
  const chars = Array.from(run);
  if (chars.length === 1) return chars;
  const out: string[] = [];
  for (let i = 0; i < chars.length - 1; i++) out.push(chars[i]! + chars[i + 1]!);
  out.push(chars[chars.length - 1]!);
  return out;
}

export function searchForm(text: string): string {
  CJK_RUN.lastIndex = 0;
  if (!CJK_RUN.test(text)) return text;
  CJK_RUN.lastIndex = 0;
  return text.replace(CJK_RUN, (run) => " " + cjkBigrams(run).join(" ") + " ");
}

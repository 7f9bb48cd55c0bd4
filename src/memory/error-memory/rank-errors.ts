// One ranking from the keyword and semantic candidate lists: a relevance per record from both signals,
// a cut relative to the best, then the rank order of the spec: same tool first, then resolved before
// failed/abandoned, then relevance.
import type { ErrorOutcome } from "./error-record.ts";

export interface RankInput {
  seq: bigint;
  tool: string;
  outcome: ErrorOutcome;
  /** bm25 magnitude; undefined when the record did not match the keywords. */
  keyword?: number;
  /** cosine; undefined when the record was not among the semantic candidates. */
  semantic?: number;
  /** Word-level match in [0, 1]; undefined when not computed. */
  words?: number;
  /** Word-level ranking score in [0, 1] (rare matches weigh more); `words` when undefined. */
  wordRank?: number;
}

export interface Ranked {
  seq: bigint;
  /** Relevance in (0, 1], 1 = the best candidate. */
  score: number;
  matchedBy: ("keyword" | "semantic")[];
  sameTool: boolean;
}

export interface RankParams {
  /** Weight of the keyword signal (the semantic one gets 1 - this). */
  keywordWeight: number;
  /** A semantic-only candidate needs at least this gain over the background similarity. */
  semanticOnlyGain: number;
  /** Weight of the word-level match. */
  wordWeight: number;
  /** A candidate found by neither keywords nor sentence vectors needs at least this word-level match. */
  wordsOnly: number;
  /** Candidates below this fraction of the best relevance are dropped. */
  cut: number;
}

export const RANK_PARAMS: RankParams = {
  keywordWeight: 0.6,
  semanticOnlyGain: 0.55,
  wordWeight: 10,
  wordsOnly: 0.3,
  cut: 0.4,
};

/**
 * `background` is the mean cosine of the query to the records (what an unrelated record scores); a
 * semantic candidate's gain is how far it rises from there toward 1.
 */
export function rankErrors(
  items: readonly RankInput[],
  background: number,
  tool: string | undefined,
  p: RankParams = RANK_PARAMS,
): Ranked[] {
  const bestKw = Math.max(0, ...items.map((i) => i.keyword ?? 0));
  const gain = (cos: number) => Math.max(0, (cos - background) / Math.max(1e-6, 1 - background));
  const bestGain = Math.max(0, ...items.map((i) => (i.semantic === undefined ? 0 : gain(i.semantic))));
  const scored: (Ranked & { outcome: ErrorOutcome })[] = [];
  for (const it of items) {
    const kw = it.keyword !== undefined && bestKw > 0 ? it.keyword / bestKw : 0;
    const g = it.semantic !== undefined ? gain(it.semantic) : 0;
    const sem = bestGain > 0 ? g / bestGain : 0;
    const w = it.words ?? 0;
    if (kw === 0 && g < p.semanticOnlyGain && w < p.wordsOnly) continue;
    const matchedBy: Ranked["matchedBy"] = [];
    if (kw > 0) matchedBy.push("keyword");
    // The word-level match is named only when nothing else found the record.
    if ((g > 0 && it.semantic !== undefined) || (matchedBy.length === 0 && w >= p.wordsOnly))
      matchedBy.push("semantic");
    const score = p.keywordWeight * kw + (1 - p.keywordWeight) * sem + p.wordWeight * (it.wordRank ?? w);
    const sameTool = tool !== undefined && it.tool.toLowerCase() === tool.toLowerCase();
    scored.push({ seq: it.seq, score, matchedBy, sameTool, outcome: it.outcome });
  }
  const best = Math.max(0, ...scored.map((s) => s.score));
  return scored
    .filter((s) => best > 0 && s.score >= p.cut * best)
    .map((s) => ({ ...s, score: s.score / best }))
    .sort(
      (a, b) =>
        Number(b.sameTool) - Number(a.sameTool) ||
        Number(b.outcome === "resolved") - Number(a.outcome === "resolved") ||
        b.score - a.score ||
        Number(a.seq - b.seq),
    )
    .map(({ outcome: _o, ...r }) => r);
}

// The two candidate lists of an error search: keyword (FTS5 bm25 over error, cause, fix, keywords) and
// semantic (cosine between the embedded query and each record's embedded error text).
import { describeError } from "../../shared/describe-error.ts";
import {
  countRefusedBy,
  countUnembedded,
  getLiveByIds,
  getLiveBySeqs,
  liveIdsOfTool,
  liveTexts,
  searchErrorFts,
} from "../../storage/sqlite/error-memory-repo.ts";
import type { Embedder } from "../../embed/embedder.ts";
import type { MemoryContext } from "../memory-context.ts";
import { recordEmbedder, type ErrorOutcome } from "./error-record.ts";
import { errorFtsQuery } from "./error-query.ts";
import { embedPendingErrors, errorEmbedder, errorVectorStore, forgetLostErrorVectors } from "./error-vectors.ts";
import { wordMatcher } from "./word-match.ts";
import { mayHoldVectors } from "../vector-location.ts";
import { everydayBar, referenceVectors } from "../../search/relevance.ts";

export interface Candidate {
  seq: bigint;
  /** The record's tool and outcome (what ranking reads besides the scores). */
  tool: string;
  outcome: ErrorOutcome;
  /** bm25 magnitude (higher is better) for keyword candidates, cosine for semantic ones, coverage for words. */
  score: number;
  /** Word-level ranking score (rarer matches weigh more), for word candidates. */
  rank?: number;
}

export interface Candidates {
  keyword: Candidate[];
  semantic: Candidate[];
  /** Word-level match (builtin word vectors) of the newest records, share of the query covered in [0, 1]. */
  words: Candidate[];
  /** Mean cosine of the query to a sample of the stored vectors, its best tenth left out: what an unrelated record scores. */
  background: number;
  /** Live records still without a vector from the configured embedder. */
  notEmbedded: number;
  notes: string[];
}

/** The catch-up under way in each memory: searches made at once wait for it, not each embed the same records again. */
const catchingUp = new WeakMap<MemoryContext, Promise<unknown>>();

/**
 * Embed records still waiting for a vector, or wait for the catch-up another search of this memory has under way
 * (its failure is that search's to report). Without this, searches made at once (an MCP server's, the daemon's API)
 * each embedded and wrote the same records, one write after another, until the last ones ran out of time.
 */
async function catchUp(ctx: MemoryContext, embedder: Embedder, max: number, signal: AbortSignal): Promise<void> {
  const running = catchingUp.get(ctx);
  if (running) {
    await running.catch(() => {});
    return;
  }
  const run = embedPendingErrors(ctx, embedder, max, signal);
  catchingUp.set(ctx, run);
  try {
    await run;
  } finally {
    if (catchingUp.get(ctx) === run) catchingUp.delete(ctx);
  }
}

/** Records embedded per search while catching up (the daemon does the rest); a remote embedder is slower. */
const CATCH_UP_LOCAL = 2000;
const CATCH_UP_REMOTE = 256;
/** The semantic half of a search gives up after this long; the keyword half still answers. */
const SEMANTIC_TIMEOUT_MS = 10_000;
/** With a tool given, its records are searched among at most this many ids (a prefilter). */
const MAX_TOOL_IDS = 5000;
/** Stored vectors compared with the query to learn the background similarity. */
const BACKGROUND_SAMPLE = 256;
/** Newest records compared word by word with the query. */
const WORD_MATCH_RECORDS = 5000;

export async function wordCandidates(
  ctx: MemoryContext,
  query: string,
  now: bigint,
  tool: string | undefined,
): Promise<Candidate[]> {
  const m = await wordMatcher();
  const q = m.words(query);
  if (q.length === 0) return [];
  const records = liveTexts(ctx.db, now, tool, WORD_MATCH_RECORDS);
  const scores = m.scoreAll(
    q,
    records.map((r) => m.recordWords(r.tool, r.error, r.other)),
    records.map((r) => r.tool.toLowerCase()),
  );
  const out: Candidate[] = [];
  records.forEach((r, i) => {
    const { cover, rank } = scores[i]!;
    if (cover > 0) out.push({ seq: r.seq, tool: r.tool, outcome: r.outcome, score: cover, rank });
  });
  return out;
}

export function keywordCandidates(
  ctx: MemoryContext,
  query: string,
  now: bigint,
  tool: string | undefined,
  pool: number,
): Candidate[] {
  const match = errorFtsQuery(query);
  if (!match) return [];
  return searchErrorFts(ctx.db, match, now, tool, pool).map((c) => ({
    seq: c.seq,
    tool: c.tool,
    outcome: c.outcome,
    score: -c.rank,
  }));
}

export async function semanticCandidates(
  ctx: MemoryContext,
  query: string,
  now: bigint,
  tool: string | undefined,
  pool: number,
): Promise<{ semantic: Candidate[]; background: number; notEmbedded: number; everyday: boolean }> {
  const embedder = await errorEmbedder(ctx);
  // The everyday check below: for a query that reads as everyday text, with the builtin embedder only (measured with
  // it; another's cosines spread differently). Its sentences are embedded beside the query, once per process.
  const everydayText =
    embedder.id.startsWith("builtin:") &&
    (await wordMatcher().then(
      (m) => m.readsAsEveryday(query),
      () => false,
    ));
  const references = everydayText ? referenceVectors(embedder).catch(() => []) : [];
  const signal = AbortSignal.timeout(SEMANTIC_TIMEOUT_MS);
  forgetLostErrorVectors(ctx, embedder.id);
  await catchUp(ctx, embedder, embedder.local ? CATCH_UP_LOCAL : CATCH_UP_REMOTE, signal);
  const pending = countUnembedded(ctx.db, embedder.id, now);
  // Records the embedder refused are found by their words only, as those not embedded yet.
  const notEmbedded = pending + countRefusedBy(ctx.db, embedder.id, now);
  const [vector] = await embedder.embed([query], signal, "query");
  const ids = tool !== undefined ? liveIdsOfTool(ctx.db, tool, now, MAX_TOOL_IDS + 1) : undefined;
  // No vector folder (nothing embedded, or no home yet): no hits, and the lookup makes none.
  const store = mayHoldVectors(ctx) ? await errorVectorStore(ctx) : undefined;
  const hits = store
    ? await store.search(embedder.id, vector!, pool, ids && ids.length <= MAX_TOOL_IDS ? ids : undefined)
    : [];
  const background = store ? meanCosine(vector!, await store.sample(embedder.id, BACKGROUND_SAMPLE)) : 0;
  // A query farther from every record than an everyday topic is (everydayBar) is not about a tool error, whatever
  // words it shares with one ("the football match ended in a draw" and git's "did not match"). Judged only when
  // every record has its vector (an unembedded record may be the close one), and not for a query of technical
  // words: the word vectors lack most of them, so its vector is mostly spelling ("container OOMKilled" is 0.16
  // to "OOMKilled exit 137").
  const closest = hits.reduce((m, h) => Math.max(m, h.score), -1);
  const everyday = hits.length > 0 && pending === 0 && closest < everydayBar(vector!, await references);
  const hitIds = hits.map((h) => h.id);
  const live = new Map(getLiveByIds(ctx.db, hitIds, now).map((r) => [r.id, r]));
  const semantic: Candidate[] = [];
  const seen = new Set<string>();
  for (const h of hits) {
    const row = live.get(h.id);
    if (seen.has(h.id)) continue;
    seen.add(h.id);
    // Vectors of deleted or expired records linger until the sweep; a stale vector of a changed record is skipped too.
    if (!row || row.embeddedBy !== embedder.id) continue;
    if (tool !== undefined && row.tool.toLowerCase() !== tool.toLowerCase()) continue;
    semantic.push({ seq: row.seq, tool: row.tool, outcome: row.outcome, score: h.score });
  }
  return { semantic, background, notEmbedded, everyday };
}

/** The keyword candidates whose record has `query` (trimmed, in any case) among its keywords. */
function taggedWith(ctx: MemoryContext, keyword: Candidate[], query: string, now: bigint): Candidate[] {
  const tag = query.trim().toLowerCase();
  const tagged = new Set(
    getLiveBySeqs(
      ctx.db,
      keyword.map((k) => k.seq),
      now,
    )
      .filter((r) => r.keywords.includes(tag))
      .map((r) => r.seq),
  );
  return keyword.filter((k) => tagged.has(k.seq));
}

/** Mean cosine of q to the sample, leaving out its top tenth (the records that do match q). */
export function meanCosine(q: Float32Array, vectors: readonly Float32Array[]): number {
  if (vectors.length === 0) return 0;
  const cos = vectors.map((v) => {
    let dot = 0;
    for (let i = 0; i < q.length; i++) dot += q[i]! * v[i]!;
    return dot;
  });
  cos.sort((a, b) => a - b);
  const keep = vectors.length > 1 ? cos.slice(0, cos.length - Math.ceil(cos.length / 10)) : cos;
  return keep.reduce((a, b) => a + b, 0) / keep.length;
}

export async function collectCandidates(
  ctx: MemoryContext,
  query: string,
  now: bigint,
  tool: string | undefined,
  pool: number,
): Promise<Candidates> {
  const keyword = keywordCandidates(ctx, query, now, tool, pool);
  const notes: string[] = [];
  let words: Candidate[] = [];
  try {
    words = await wordCandidates(ctx, query, now, tool);
  } catch (err) {
    notes.push(`word-level match unavailable: ${describeError(err)}`);
  }
  try {
    const { semantic, background, notEmbedded, everyday } = await semanticCandidates(ctx, query, now, tool, pool);
    // Like any query that matches nothing: no record, no note; but a query that is one of a record's own keywords
    // (given to find it by, as "tf-locking") still finds that record.
    if (everyday)
      return { keyword: taggedWith(ctx, keyword, query, now), semantic: [], words: [], background, notEmbedded, notes };
    if (notEmbedded > 0)
      notes.push(`${notEmbedded} error record(s) are not embedded yet; they are found by keyword only`);
    return { keyword, semantic, words, background, notEmbedded, notes };
  } catch (err) {
    notes.push(`semantic lookup unavailable, keyword results only: ${describeError(err)}`);
    const configured = recordEmbedder(ctx);
    const notEmbedded = configured === undefined ? 0 : countUnembedded(ctx.db, configured, now);
    return { keyword, semantic: [], words, background: 0, notEmbedded, notes };
  }
}

// Semantic search over the recent tier: vector similarity (session / time filtered), joined with SQLite so
// stale vectors never surface, each hit expanded with its neighbours.
import type { Embedder } from "../embed/embedder.ts";
import type { StoredMessage } from "../shared/message.ts";
import type { TimeRange } from "../shared/time.ts";
import { passesFilter, type MessageFilter } from "../shared/time-filter.ts";
import type { MessageVectorTable as VectorTable } from "../storage/ports/vector-port.ts";
import { getMessagesById } from "../storage/sqlite/messages-repo.ts";
import { knownSenders, recentIdsPassing } from "../storage/sqlite/semantic-queries.ts";
import type { Db } from "../storage/sqlite/db.ts";
import { indexStats } from "../storage/sqlite/keyword-queries.ts";
import { recentCount } from "../storage/sqlite/embed-queue-repo.ts";
import { expandHits } from "./expand.ts";
import { queryFocus, senderFactor, type QueryFocus } from "./participants.ts";
import { queryTerms } from "./query-terms.ts";
import { scopeFilter, type SearchHit, type SearchResult, type TierScope } from "./search-types.ts";
import { makeSnippet } from "./snippet.ts";
import { calibrate, calibratedScore, contentWordsFar, RELEVANCE, type Calibration } from "./relevance.ts";
import { coverage, mostlyUnheld, namesUnknown, noSharedWord, unknownNames, type TermWeights } from "./coverage.ts";
import { holdsSymbols, querySymbols } from "./symbols.ts";
import { NO_CLOSE, unknownNamesReason } from "./empty-reason.ts";

/** Score factor for messages of other senders when the query names one participant (tuned on LoCoMo dev). */
export const OTHER_SENDER_FACTOR = 0.9;
/** Candidates read from SQLite beyond `limit` before the rest (the rest is read only if too few are kept). */
const FIRST_READ_MARGIN = 5;

export interface SemanticSource {
  embedder: Embedder;
  /** The configured embedder's table; absent until something was embedded. */
  table?: VectorTable;
  notIndexed: number;
  reindexNeeded: boolean;
  otherEmbedders: string[];
  /** What embeds the messages not indexed yet, or what to run for it (said after their count). */
  pendingStep?: string;
  /** Of those not indexed, the messages the embedder refused at their last try, and its latest refusal. */
  refused?: { count: number; error?: string };
  /** Calibrated scores below this are dropped (`[search] min_score`, else the embedder's default). */
  minScore: number;
  /** The table's background vectors (kept statistics: see relevance.ts), read when a query is calibrated. */
  background(): Promise<Float32Array[]>;
}

export interface SemanticOptions extends TierScope {
  signal?: AbortSignal;
  /** The last word is still being typed (keyword side: it also matches as a prefix). */
  typing?: boolean;
}

export interface RankedMessage {
  message: StoredMessage;
  score: number;
}

/**
 * Best first; equal scores (the same text said again) give the newest sent first, as keyword search orders them,
 * then the last written.
 */
export const bestFirst = (a: RankedMessage, b: RankedMessage): number =>
  b.score - a.score || Number(b.message.sendAt - a.message.sendAt) || (a.message.seq > b.message.seq ? -1 : 1);

/** A sender of at most this many recent messages has the vector search held to their ids. */
export const SENDER_IDS_MAX = 1_000;

/** Vector candidates fetched for `limit` hits; the sender is checked on the SQLite row: look deeper then. */
export function candidateDepth(limit: number, sender: boolean): number {
  return sender ? Math.max(limit * 20, 200) : Math.max(limit * 4, 50);
}

/**
 * A vector candidate's calibrated score, or undefined when it is no hit: not a recent row of its session any more,
 * outside the scope, without the query's symbols, or sharing no piece of a query of identifiers only
 * (Embedder.partScale). Others' messages count a little less when the query names a participant.
 */
export function candidateScorer(
  scope: MessageFilter,
  symbols: ReturnType<typeof querySymbols>,
  focus: QueryFocus,
  partScale: ((text: string) => number) | undefined,
  cal: Calibration,
  unknown: number,
): (h: { score: number; session: string }, m: StoredMessage | undefined) => number | undefined {
  return (h, m) => {
    if (!m || !m.recent || m.session !== h.session || !passesFilter(m, scope)) return undefined;
    if (!holdsSymbols(m.content, symbols)) return undefined;
    const part = partScale?.(m.content) ?? 1;
    if (part === 0) return undefined;
    return calibratedScore(h.score * senderFactor(focus, m.sender, OTHER_SENDER_FACTOR) * part, cal) * unknown;
  };
}

export function focusFor(db: Db, query: string, session?: string): QueryFocus {
  return queryFocus(query, knownSenders(db, session));
}

/**
 * Recent messages most similar to the query, best first (no expansion), scored by calibrated relevance;
 * those under `minScore` (default: the source's) are left out.
 */
export async function semanticRanking(
  db: Db,
  src: SemanticSource,
  o: SemanticOptions,
  focus: QueryFocus,
  limit: number,
  minScore = src.minScore,
  /** Counts the candidates over the cut dropped for being far in their content words (contentWordsFar). */
  dropped?: { far: number },
): Promise<RankedMessage[]> {
  if (!src.table) return [];
  const [qv] = await src.embedder.embed([focus.text], o.signal, "query");
  const scope = scopeFilter(o);
  // The role is a column of the vector rows: filtered there, it never leaves a role's messages out of the depth.
  // The sender is not: the search is held to the ids of the sender's messages, while they are few.
  const senderIds = scope.sender === undefined ? undefined : recentIdsPassing(db, scope, o.session, SENDER_IDS_MAX);
  const filter = { session: o.session, since: scope.since, until: scope.until, role: scope.role, ids: senderIds };
  const depth = candidateDepth(limit, scope.sender !== undefined && senderIds === undefined);
  // LanceDB searches on its own threads, but plans the query through several turns of this thread's event loop
  // first: the synchronous steps below delay its answer by what they cost, so they are kept few and cheap.
  const pending = src.table.search(qv!, filter, depth);
  pending.catch(() => {});
  const cal = calibrate(qv!, await src.background());
  const symbols = querySymbols(o.query);
  // The cut: minScore, raised to RELEVANCE.noSharedWord when no message holds any of the query's words (looked
  // up for a score between the two). With the builtin embedder, when the words some message holds weigh less than
  // RELEVANCE.heldShare of the query, a hit holding none of them must also be close in its content words
  // (contentWordsFar): the query is mostly about something this memory never mentions.
  let noneShared: boolean | undefined;
  const belowCut = (score: number) =>
    score < minScore || (score < RELEVANCE.noSharedWord && (noneShared ??= noSharedWord(db, focus.text)));
  const wordsFar = src.embedder.id.startsWith("builtin:") ? contentWordsFar(src.embedder, focus.text) : undefined;
  let unheld: TermWeights | undefined | null;
  const farOff = async (content: string) => {
    if (!wordsFar) return false;
    if (unheld === undefined) unheld = mostlyUnheld(db, focus.text, RELEVANCE.heldShare) ?? null;
    if (unheld === null) return false;
    // A hit of a query no message holds a word of is checked whatever it holds inside its words ("cat" in
    // "dedicated"); of one mostly unheld, only a hit holding none of its words, inside words either.
    const checked = (noneShared ??= noSharedWord(db, focus.text)) || coverage(content, unheld, true) === 0;
    // Word by word too only when no message holds a word of the query (RELEVANCE.wordAgrees).
    return checked && (await wordsFar(content, noneShared === true));
  };
  const unknown = namesUnknown(db, focus.text) ? RELEVANCE.unknownName : 1;
  // A query of identifiers only is compared over the part of each vector it can match (Embedder.partScale).
  const partScale = src.embedder.partScale?.(focus.text);
  const scoreOf = candidateScorer(scope, symbols, focus, partScale, cal, unknown);
  const found = await pending;
  // Without a sender preference or a part scale every factor is the same, so scores fall in the vector order: rows
  // are read for the best candidates first, the rest only when fewer than `limit` of those are kept and over the cut.
  const ordered = focus.sender === undefined && partScale === undefined;
  const out: RankedMessage[] = [];
  let done = false;
  let edge = Number.NaN;
  for (let at = 0; at < found.length && !done; ) {
    const end = ordered && at === 0 ? limit + FIRST_READ_MARGIN : found.length;
    const part = found.slice(at, end);
    at = end;
    const byId = new Map(
      getMessagesById(
        db,
        part.map((h) => h.id),
      ).map((m) => [m.id, m]),
    );
    for (const h of part) {
      // `limit` kept: only a candidate as close as the last kept (the same text said again) may still be.
      if (ordered && out.length >= limit && h.score !== edge) {
        done = true;
        break;
      }
      const m = byId.get(h.id);
      // Only rows SQLite still holds in the recent tier: deleted or compacted vectors never surface.
      const score = scoreOf(h, m);
      if (m === undefined || score === undefined) continue;
      // In the vector order, every later candidate scores at most this: below the cut, or past `limit`.
      if (belowCut(score)) {
        done = ordered;
        if (done) break;
        continue;
      }
      if (await farOff(m.content)) {
        if (dropped) dropped.far++;
        continue;
      }
      out.push({ message: m, score });
      if (out.length === limit) edge = h.score;
    }
  }
  out.sort(bestFirst);
  return out.slice(0, limit);
}

export function statusNotes(
  src: Pick<SemanticSource, "notIndexed" | "reindexNeeded" | "otherEmbedders" | "embedder" | "pendingStep" | "refused">,
): string[] {
  const notes: string[] = [];
  const refused = Math.min(src.refused?.count ?? 0, src.notIndexed);
  if (refused > 0) {
    const why = src.refused?.error ? ` (${src.refused.error})` : "";
    const one = refused === 1;
    notes.push(
      `${refused} message${one ? " is" : "s are"} not indexed: the embedder refused ${one ? "it" : "them"}${why}; keyword search still finds ${one ? "it" : "them"}`,
    );
  }
  const pending = src.notIndexed - refused;
  if (pending > 0) {
    const step = src.pendingStep ? `: ${src.pendingStep}` : "";
    notes.push(`${pending} message${pending === 1 ? " is" : "s are"} not indexed yet${step}`);
  }
  if (src.reindexNeeded && src.otherEmbedders.length > 0) {
    const from = ` (stored vectors come from ${src.otherEmbedders.join(", ")})`;
    notes.push(`the configured embedder is ${src.embedder.id}${from}: run memvoy reindex`);
  } else if (src.reindexNeeded) {
    // Messages marked embedded, and no table of this embedder: its vector folder was removed or replaced.
    notes.push(
      `the vectors of the configured embedder ${src.embedder.id} are gone, though recent messages were embedded (the vector folder removed or replaced?): run memvoy reindex`,
    );
  }
  return notes;
}

export async function semanticSearch(db: Db, src: SemanticSource, o: SemanticOptions): Promise<SearchResult> {
  const limit = Math.max(1, o.limit ?? 10);
  const focus = focusFor(db, o.query, o.session);
  const dropped = { far: 0 };
  const ranked = await semanticRanking(db, src, o, focus, limit, src.minScore, dropped);
  const runs = expandHits(
    db,
    ranked.map((r) => r.message),
  );
  const terms = queryTerms(o.query);
  const pieces = querySymbols(o.query);
  const hits: SearchHit[] = ranked.map((r, i) => {
    const s = makeSnippet(r.message.content, terms, undefined, pieces);
    return {
      message: r.message,
      source: "semantic",
      foundBy: ["semantic"],
      score: r.score,
      snippet: s.text,
      highlights: s.highlights,
      context: runs[i]!,
      rank: i + 1,
    };
  });
  const result: SearchResult = {
    hits,
    notIndexed: src.notIndexed,
    reindexNeeded: src.reindexNeeded,
    notes: statusNotes(src),
  };
  if (hits.length === 0) {
    // A home whose every message was removed keeps its (empty) vector table: nothing is indexed there either. Nor
    // in a session whose every recent message waits for its vector (the embedder was down while it was written).
    const empty =
      !src.table || indexStats(db).rows === 0 || (src.notIndexed > 0 && src.notIndexed >= recentCount(db, o.session));
    const shared = !empty && noSharedWord(db, focus.text);
    // Hits over min_score dropped for being far in their content words: the query is mostly about what no message
    // mentions (semanticRanking), not short of the score.
    const far = !empty && dropped.far > 0;
    result.emptyReason = semanticEmptyReason(src, shared, empty, empty ? [] : unknownNames(db, focus.text), far);
  }
  return result;
}

/**
 * Why a semantic answer is empty: nothing indexed (`nothingStored`: no message at all), or nothing close enough
 * (`noWordShared`: whether no message holds a word of the query, whose hits then had a higher bar).
 */
export function semanticEmptyReason(
  src: Pick<SemanticSource, "table" | "minScore">,
  noWordShared: boolean,
  nothingStored = false,
  /** The query's names no message mentions (their hits' scores were cut to a quarter). */
  unknown: readonly string[] = [],
  /** Whether hits over the cut were dropped, the words some message holds weighing little in the query (mostlyUnheld). */
  mostlyUnheldWords = false,
): string {
  if (!src.table || nothingStored) return "nothing is indexed yet";
  if (noWordShared) return `${NO_CLOSE} (no message holds a word of the query, and none is close enough in meaning)`;
  if (unknown.length > 0) return `${NO_CLOSE} (${unknownNamesReason(unknown)}, and none is close enough in meaning)`;
  if (mostlyUnheldWords)
    return `${NO_CLOSE} (most of the query's words are in no message, and none is close enough in meaning)`;
  return `${NO_CLOSE} (nothing scored at least ${src.minScore})`;
}

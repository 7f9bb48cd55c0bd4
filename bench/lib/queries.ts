// The keyword-search workload: selective queries, session-scoped and time-ranged ones, and common terms.
import type { SearchOptions } from "../../src/search/search-types.ts";

type TimeRange = NonNullable<SearchOptions["range"]>;
import { CONTENT } from "./corpus.ts";
import { sessionName } from "./build-home.ts";

export type QueryGroup = "selective" | "session" | "range" | "common" | "mixed";

export interface BenchQuery {
  group: QueryGroup;
  query: string;
  session?: string;
  range?: TimeRange;
}

/** Session indexes spread over the home (clamped for --quick homes with fewer sessions). */
const sessionAt = (k: number, sessions: number) => sessionName(k % sessions);

export function benchQueries(sessions: number): BenchQuery[] {
  const rare = (rank: number) => CONTENT[rank]!; // made-up words of the Zipf tail: ~0.2% .. 0.05% of messages
  return [
    { group: "selective", query: "kubernetes" },
    { group: "selective", query: "rollback incident" },
    { group: "selective", query: "database backup restore" },
    { group: "selective", query: "payment refund" },
    { group: "selective", query: rare(1000) },
    { group: "selective", query: rare(2500) },
    { group: "selective", query: rare(4000) },
    { group: "selective", query: `deploy ${rare(1500)}` },
    { group: "selective", query: "数据库" },
    { group: "selective", query: "ログ" },
    { group: "selective", query: "库" },
    { group: "selective", query: "東京 会議" },
    { group: "session", query: "error", session: sessionAt(42, sessions) },
    { group: "session", query: "deploy server", session: sessionAt(137, sessions) },
    { group: "session", query: "payment", session: sessionAt(500, sessions) },
    { group: "session", query: rare(1000), session: sessionAt(999, sessions) },
    { group: "range", query: "error", range: "7d" },
    { group: "range", query: "kubernetes", range: "30d" },
    { group: "range", query: "deploy server", range: "1y" },
    { group: "common", query: "error" },
    { group: "common", query: "deploy" },
  ];
}

/**
 * Common words beside rarer ones, as people and agents phrase a search (bench/keyword.ts only: the other benches
 * keep their workload). FTS5's AND reads the common words' long row lists at every match of the rarer ones.
 * Two-character CJK words beside other words, too.
 */
export const MIXED_QUERIES: BenchQuery[] = [
  { group: "mixed", query: "deploy server rollback incident" },
  { group: "mixed", query: "deploy the server after the rollback incident" },
  { group: "mixed", query: "error timeout retry" },
  { group: "mixed", query: "server error payment refund" },
  // A two-character CJK word has no trigram of its own for the recent substring walk.
  { group: "mixed", query: "error ログ" },
  { group: "mixed", query: "deploy 東京" },
];

/**
 * The same search with rg over the JSONL export (substring, case-insensitive; terms chained with pipes),
 * counted by wc so the matching lines are not held in memory.
 */
export function rgCommand(q: BenchQuery, file: string): string | undefined {
  if (q.range) return undefined; // rg has no notion of a message's time
  const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
  const terms = q.query.split(/\s+/).filter(Boolean);
  const stages = terms.map((t) => `rg -i -F -e ${quote(t)}`);
  const first = q.session
    ? `rg -F -e ${quote(`"session":"${q.session}"`)} ${quote(file)}`
    : `${stages.shift()} ${quote(file)}`;
  return [first, ...stages, "wc -l"].join(" | ");
}

// One search as the MemoryApi answers it: the input checked, since/until applied, the result as JSON.
// The daemon runs it in its worker child for semantic and hybrid matches (LanceDB stays out of the daemon).
import { parseTimeOrThrow } from "../../shared/time.ts";
import type { HomeMemory } from "../memory-api.ts";
import { searchJson } from "./json-shapes.ts";
import type { SearchResultJson } from "./json-types.ts";
import * as S from "./schemas.ts";

/** Hits fetched before a since/until filter is applied, per hit asked for. */
const WINDOW_FACTOR = 5;

export async function searchAsJson(home: HomeMemory, input: unknown): Promise<SearchResultJson> {
  const o = S.parseInput(S.SearchInput, input, "search");
  const since = o.since !== undefined ? parseTimeOrThrow(o.since, "search: since") : undefined;
  const until = o.until !== undefined ? parseTimeOrThrow(o.until, "search: until") : undefined;
  const limit = o.limit ?? 10;
  const windowed = since !== undefined || until !== undefined;
  const r = await home.search({
    query: o.query,
    session: o.session,
    match: o.match,
    range: o.range,
    limit: windowed ? Math.min(S.LIMITS.searchLimit, limit * WINDOW_FACTOR) : limit,
  });
  if (windowed) {
    r.hits = r.hits.filter((h) => (since === undefined || h.message.sendAt >= since) && (until === undefined || h.message.sendAt < until)).slice(0, limit);
  }
  return searchJson(o.query, r);
}

// One search as the MemoryApi answers it: the input checked, since/until read as times, the result as JSON.
import { parseTimeOrThrow } from "../../shared/time.ts";
import type { SearchOptions, SearchResult } from "../../search/search-types.ts";
import { searchJson } from "./json-shapes.ts";
import type { SearchResultJson } from "./json-types.ts";
import * as S from "./schemas.ts";

/** `home`: the HomeMemory (typed by the one method used, so that this module does not import it back). */
export async function searchAsJson(
  home: { search(o: SearchOptions): Promise<SearchResult> },
  input: unknown,
): Promise<SearchResultJson> {
  const o = S.parseInput(S.SearchInput, input, "search");
  const r = await home.search({
    query: o.query,
    session: o.session,
    match: o.match,
    range: o.range,
    since: o.since !== undefined ? parseTimeOrThrow(o.since, "search: since") : undefined,
    until: o.until !== undefined ? parseTimeOrThrow(o.until, "search: until") : undefined,
    limit: o.limit,
  });
  return searchJson(o.query, r);
}

// One search as the MemoryApi answers it: the input checked, since/until read as the CLI reads them, the result as JSON.
import { InvalidTimeBoundError } from "../../shared/time-filter.ts";
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
  try {
    // since and until go as text: the search reads them as --since and --until are read (3d, today, a date
    // alone as until: the end of that day).
    const r = await home.search({
      query: o.query,
      session: o.session,
      match: o.match,
      range: o.range,
      since: o.since,
      until: o.until,
      limit: o.limit,
    });
    return searchJson(o.query, r);
  } catch (err) {
    if (err instanceof InvalidTimeBoundError)
      throw new InvalidTimeBoundError({ ...err.data, what: `search: ${err.data.kind}` }, { cause: err });
    throw err;
  }
}

// The MemoryApi calls that touch LanceDB, made by the daemon's `api` worker child: the daemon's side (VectorCalls
// over the child) and the child's side (one call made in its own process), with the request that joins them.
import { inProcessVectorCalls, type MemoryHome, type VectorCalls } from "../app/api/local-memory-api.ts";
import type { RecordErrorInput, SearchErrorsInput, SearchInput } from "../app/api/memory-api.ts";
import type * as J from "../app/api/json-types.ts";

/** One request to the child: a VectorCalls method and its checked input. */
export type VectorCall =
  | { call: "search"; input: SearchInput }
  | { call: "searchErrors"; input: SearchErrorsInput }
  | { call: "recordError"; input: RecordErrorInput }
  | { call: "rmError"; id: string }
  | { call: "purgeDeleted" };

/** VectorCalls answered by `ask` (the daemon's Workers, kind `api`). */
export function vectorCallsVia(ask: (c: VectorCall) => Promise<unknown>): VectorCalls {
  return {
    search: (input) => ask({ call: "search", input }) as Promise<J.SearchResultJson>,
    searchErrors: (input) => ask({ call: "searchErrors", input }) as Promise<J.ErrorSearchResultJson>,
    recordError: (input) => ask({ call: "recordError", input }) as Promise<J.RecordErrorResultJson>,
    rmError: (id) => ask({ call: "rmError", id }) as Promise<J.RemoveErrorResultJson>,
    purgeDeleted: () => ask({ call: "purgeDeleted" }),
  };
}

/** The child's side: the call made on the child's own home, as LocalMemoryApi makes it in any process. */
export function makeVectorCall(home: MemoryHome, c: VectorCall): Promise<unknown> {
  const calls = inProcessVectorCalls(home);
  switch (c.call) {
    case "search":
      return calls.search(c.input);
    case "searchErrors":
      return calls.searchErrors(c.input);
    case "recordError":
      return calls.recordError(c.input);
    case "rmError":
      return calls.rmError(c.id);
    case "purgeDeleted":
      return calls.purgeDeleted();
  }
}

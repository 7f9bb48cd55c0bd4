// The error for a search option that cannot be used (no query, one with a NUL or too long, an unknown range, order or
// match mode, a bad limit).
import { namedError } from "../shared/errors.ts";

/** The longest query, in characters (UTF-16 units, as JavaScript counts them), on every surface. */
export const MAX_QUERY_CHARS = 10_000;

const HINTS = {
  range: "use 1d, 7d, 30d, 1y or all",
  limit: "use a whole number from 1 to 1000",
  order: "use relevance or newest",
  match: "use keyword, semantic or hybrid",
} as const;

const NAMES = { range: "range", limit: "limit", order: "order", match: "match mode" } as const;

export const InvalidSearchOptionError = namedError<
  { option: "query"; nul?: number; chars?: number } | { option: keyof typeof HINTS; value: unknown }
>("InvalidSearchOptionError", "input", (d) => {
  if (d.option === "query") {
    if (d.chars !== undefined) return `query must be at most ${MAX_QUERY_CHARS} characters (it has ${d.chars})`;
    return d.nul === undefined
      ? "search needs a query"
      : `the search query contains a NUL character at offset ${d.nul}: no message can hold one`;
  }
  const shown = d.option === "limit" ? String(d.value) : JSON.stringify(d.value);
  return `invalid ${NAMES[d.option]} ${shown}: ${HINTS[d.option]}`;
});
export type InvalidSearchOptionError = InstanceType<typeof InvalidSearchOptionError>;

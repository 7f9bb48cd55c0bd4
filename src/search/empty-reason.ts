// Why a search has no hit: no message holds the query's terms, or some do and the filters leave every one out.
import type { MessageFilter } from "../shared/time-filter.ts";
import type { TimeRange } from "../shared/time.ts";

export const NO_TERMS = "no message holds the query's terms";

type Narrowing = { range?: TimeRange; filter?: MessageFilter };

/** What narrowed the search: time (range, since, until), role, sender. */
function narrowedBy(o: Narrowing): string[] {
  const f = o.filter ?? {};
  const by: string[] = [];
  if ((o.range !== undefined && o.range !== "all") || f.since !== undefined || f.until !== undefined) by.push("time");
  if (f.role !== undefined) by.push("role");
  if (f.sender !== undefined) by.push("sender");
  return by;
}

/** The reason when messages hold the terms but none passes the filters. */
function filteredOutReason(by: string[]): string {
  if (by.length === 1 && by[0] === "time") return "messages hold the query's terms, but none falls in the time range";
  const names = by.length === 1 ? by[0] : `${by.slice(0, -1).join(", ")} and ${by.at(-1)}`;
  return `messages hold the query's terms, but none passes the ${names} filter${by.length > 1 ? "s" : ""}`;
}

/**
 * An empty result's reason, corrected when it blames the terms of a narrowed search: `anyUnfiltered` looks for
 * one message holding the terms with no filter (a one-row query, run only for an empty, narrowed answer).
 */
export async function explainEmpty(
  reason: string | undefined,
  o: Narrowing,
  anyUnfiltered: () => boolean | Promise<boolean>,
): Promise<string | undefined> {
  const by = narrowedBy(o);
  if (reason === undefined || !reason.startsWith(NO_TERMS) || by.length === 0) return reason;
  return (await anyUnfiltered()) ? filteredOutReason(by) : reason;
}

// The time window of a search: the later of `range` and `since` as the lower bound, `until` (exclusive) as the upper.
import { rangeStart, type TimeRange } from "../shared/time.ts";

export interface TimeBounds {
  range?: TimeRange;
  /** UTC ns, inclusive. */
  since?: bigint;
  /** UTC ns, exclusive. */
  until?: bigint;
  now: bigint;
}

export function timeWindow(o: TimeBounds): { since?: bigint; until?: bigint } {
  const fromRange = rangeStart(o.range ?? "all", o.now);
  const since = fromRange === undefined ? o.since : o.since === undefined || o.since < fromRange ? fromRange : o.since;
  return { since, until: o.until };
}

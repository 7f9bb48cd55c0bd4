// A since or until value as the instant it stands for in this process (its zone and clock), for a daemon that
// would otherwise read a date, a local time or a relative form in its own zone: the CLI and connectMemory send this.
import { nsToRfc3339 } from "../../shared/time.ts";
import { parseTimeBound } from "../../shared/time-filter.ts";

/**
 * The bound as an RFC 3339 instant to the nanosecond. The daemon takes an `until` instant as inclusive (it adds
 * 1 ns), so the exclusive bound is sent 1 ns earlier. Undefined when not given; null when the value is no time
 * (the receiver then says what is wrong with it).
 */
export function boundInstant(text: unknown, kind: "since" | "until", now: bigint): string | undefined | null {
  if (text === undefined) return undefined;
  if (typeof text !== "string") return null;
  try {
    const bound = parseTimeBound(text, kind, now);
    return nsToRfc3339(kind === "until" ? bound - 1n : bound);
  } catch {
    return null;
  }
}

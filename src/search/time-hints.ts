// Dates and relative time named in a query ("on 13 October, 2023", "in June", "last May", "two weeks ago")
// as a soft time filter: messages sent in that span are preferred, others are kept at a lower score.
import { NS_PER_DAY, NS_PER_MS, type Nanos } from "../shared/time.ts";

/** Score factor of messages sent outside the span a query names (chosen on LoCoMo dev, bench/locomo.ts). */
export const TIME_HINT = { outside: 0.7 };

interface Span {
  since: Nanos;
  until: Nanos;
}
/** A span of time, or a month of any year (0-11). */
export type TimeSpan = Span | { month: number };

const MONTHS = "january february march april may june july august september october november december".split(" ");
const MONTH = `(${MONTHS.join("|")}|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\\.?`;
const NUMBERS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  couple: 2,
  few: 3,
};
const UNIT_DAYS: Record<string, number> = { day: 1, week: 7, month: 30.44, year: 365.25 };

const DAY_MONTH_YEAR = new RegExp(`\\b${MONTH}\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`);
const DAY_OF_MONTH_YEAR = new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH},?\\s+(\\d{4})\\b`);
const MONTH_YEAR = new RegExp(`\\b${MONTH},?\\s+(?:of\\s+)?(\\d{4})\\b`);
const LAST_MONTH = new RegExp(`\\b(?:last|this past)\\s+${MONTH}(?![\\w'])`);
const IN_MONTH = new RegExp(`\\b(?:in|during|early|late|mid)[-\\s]+${MONTH}(?![\\w'])`);
/** Every pattern below needs one of these: most queries name no time, and skip them all. */
const NAMES_TIME = /\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|yesterday|today|last|past|this|ago/;

const monthOf = (s: string) => MONTHS.findIndex((m) => m.startsWith(s.toLowerCase().replace(/\.$/, "").slice(0, 3)));
const utc = (y: number, m: number, d: number) => BigInt(Date.UTC(y, m, d)) * NS_PER_MS;
const days = (n: number) => BigInt(Math.round(n * 86_400)) * 1_000_000_000n;

/** A UTC day, widened by a day on each side (the sender's time zone is not known). */
const dayAround = (y: number, m: number, d: number): Span => ({
  since: utc(y, m, d) - NS_PER_DAY,
  until: utc(y, m, d) + 2n * NS_PER_DAY,
});
const monthSpan = (y: number, m: number): Span => ({
  since: utc(y, m, 1) - NS_PER_DAY,
  until: utc(y, m + 1, 1) + NS_PER_DAY,
});

/** The latest month `m` that started before `now`. */
function lastMonth(m: number, now: Nanos): Span {
  const year = new Date(Number(now / NS_PER_MS)).getUTCFullYear();
  const span = monthSpan(year, m);
  return span.since + NS_PER_DAY > now ? monthSpan(year - 1, m) : span;
}

/**
 * The span of time a query names, if it names one: a full date, a month and year, a month ("last May": the
 * latest; "in June": any year's), a year ("in 2023"), or a time relative to `now` (yesterday, last week,
 * two weeks ago, ...). The first such phrase wins.
 */
export function timeHint(query: string, now: Nanos): TimeSpan | undefined {
  const q = query.toLowerCase();
  if (!NAMES_TIME.test(q)) return undefined;
  let m = DAY_MONTH_YEAR.exec(q);
  if (m) return dayAround(Number(m[3]), monthOf(m[1]!), Number(m[2]));
  m = DAY_OF_MONTH_YEAR.exec(q);
  if (m) return dayAround(Number(m[3]), monthOf(m[2]!), Number(m[1]));
  m = MONTH_YEAR.exec(q);
  if (m) return monthSpan(Number(m[2]), monthOf(m[1]!));
  m = LAST_MONTH.exec(q);
  if (m) return lastMonth(monthOf(m[1]!), now);
  // "in June": the year is not said, so every June.
  m = IN_MONTH.exec(q);
  if (m) return { month: monthOf(m[1]!) };
  m = /\b(?:in|during)\s+((?:19|20)\d{2})\b/.exec(q);
  if (m) return { since: utc(Number(m[1]), 0, 1) - NS_PER_DAY, until: utc(Number(m[1]) + 1, 0, 1) + NS_PER_DAY };
  if (/\byesterday\b/.test(q)) return { since: now - 2n * NS_PER_DAY, until: now };
  if (/\btoday\b/.test(q)) return { since: now - NS_PER_DAY, until: now + NS_PER_DAY };
  m = /\b(?:last|past|this)\s+(week|weekend|month|year)\b/.exec(q);
  if (m) {
    const span = UNIT_DAYS[m[1] === "weekend" ? "week" : m[1]!]!;
    return { since: now - days(span * 2), until: now };
  }
  m =
    /\b(\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|(?:a\s+)?(?:couple|few)(?:\s+of)?)\s+(day|week|month|year)s?\s+ago\b/.exec(
      q,
    );
  if (m) {
    const word = m[1]!.replace(/^a\s+/, "").replace(/\s+of$/, "");
    const n = /^\d+$/.test(word) ? Number(word) : (NUMBERS[word] ?? 1);
    const unit = UNIT_DAYS[m[2]!]!;
    const mid = now - days(n * unit);
    const half = days(Math.max(1, unit * Math.max(1, n) * 0.5));
    return { since: mid - half, until: mid + half };
  }
  return undefined;
}

/** A hit's score factor under a span: 1 inside it (or with no span), TIME_HINT.outside outside. */
export function timeFactor(span: TimeSpan | undefined, sendAt: Nanos): number {
  if (span === undefined) return 1;
  const inside =
    "month" in span
      ? new Date(Number(sendAt / NS_PER_MS)).getUTCMonth() === span.month
      : sendAt >= span.since && sendAt < span.until;
  return inside ? 1 : TIME_HINT.outside;
}

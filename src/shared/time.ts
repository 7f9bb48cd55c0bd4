// Time as UTC nanoseconds (bigint): clock, parsing (--at, content headers) and formatting.
import { namedError } from "./errors.ts";

export type Nanos = bigint;
export const NS_PER_MS = 1_000_000n;
export const NS_PER_SEC = 1_000_000_000n;
export const NS_PER_DAY = 86_400n * NS_PER_SEC;
/** A timer's longest delay (about 24.8 days): a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** How far the monotonic reading may stray from the wall clock before it is set to it again. */
const REANCHOR_NS = NS_PER_SEC;

/**
 * A wall clock in ns with the monotonic clock's resolution, strictly increasing. The monotonic clock stops while the
 * machine sleeps (a laptop's lid closed) and the wall clock does not: past REANCHOR_NS apart, it follows the wall
 * clock again, so a long-lived process (the daemon, an MCP server, the terminal UI) never stamps the past.
 */
export function makeClock(wallMs: () => number, monotonic: () => bigint): () => Nanos {
  let hrBase = monotonic();
  let wallBase = BigInt(wallMs()) * NS_PER_MS;
  let lastNow = 0n;
  return () => {
    const hr = monotonic();
    let t = wallBase + (hr - hrBase);
    const wall = BigInt(wallMs()) * NS_PER_MS;
    if (t - wall > REANCHOR_NS || wall - t > REANCHOR_NS) {
      wallBase = wall;
      hrBase = hr;
      t = wall;
    }
    if (t <= lastNow) t = lastNow + 1n;
    lastNow = t;
    return t;
  };
}

/** Wall-clock now in ns, strictly increasing within this process. */
export const nowNs: () => Nanos = makeClock(Date.now, process.hrtime.bigint);

const pad = (n: number, w = 2) => String(n).padStart(w, "0");

function splitNs(ns: Nanos): { ms: number; frac: bigint } {
  let frac = ns % NS_PER_SEC;
  let secs = ns / NS_PER_SEC;
  if (frac < 0n) {
    frac += NS_PER_SEC;
    secs -= 1n;
  }
  return { ms: Number(secs) * 1000, frac };
}

/** RFC 3339 in UTC with nanoseconds: 2026-11-30T04:31:00.123456789Z */
export function nsToRfc3339(ns: Nanos): string {
  const { ms, frac } = splitNs(ns);
  const d = new Date(ms);
  return (
    `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}` +
    `T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${frac.toString().padStart(9, "0")}Z`
  );
}

/** `YYYY-MM-DD HH:MM:SS` in local time (display). */
export function nsToLocalSeconds(ns: Nanos): string {
  const d = new Date(splitNs(ns).ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** `YYYY-MM-DD HH:MM:SS` in UTC (the summary transcript). */
export function nsToUtcSeconds(ns: Nanos): string {
  const d = new Date(splitNs(ns).ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * Parse a time. Accepts RFC 3339 (with zone), a zone-less `YYYY-MM-DD[ HH:MM[:SS[.frac]]]` read in the
 * local timezone, or a unix time of seconds (<=11 digits), milliseconds (12-14), microseconds (15-17) or ns (18-19),
 * a fraction of that unit allowed (1765000000.5).
 * Returns undefined when the text is not a time.
 */
export function parseTime(text: string): Nanos | undefined {
  const ns = parseTimeUnchecked(text);
  return ns !== undefined && timeInRange(ns) ? ns : undefined;
}

/** The times memvoy stores: 1970-01-01T00:00:00Z up to the largest signed 64-bit nanosecond count. */
export const MIN_TIME_NS = 0n;
export const MAX_TIME_NS = 9_223_372_036_854_775_807n;
export const TIME_RANGE_TEXT = "1970-01-01T00:00:00Z to 2262-04-11T23:47:16Z";

export function timeInRange(ns: Nanos): boolean {
  return ns >= MIN_TIME_NS && ns <= MAX_TIME_NS;
}

/** A time as parseTime reads it, before 1970 or past 2262 included (a search bound is then moved to the edge). */
export function parseTimeUnchecked(text: string): Nanos | undefined {
  const s = text.trim();
  if (/^-?\d+$/.test(s)) {
    const digits = s.replace("-", "").length;
    const n = BigInt(s);
    if (digits <= 11) return n * NS_PER_SEC;
    if (digits <= 14) return n * NS_PER_MS;
    if (digits <= 17) return n * 1000n;
    if (digits <= 19) return n;
    return undefined;
  }
  const unix = unixDecimal(s);
  if (unix) return unix.ns;
  const m = DATE_TIME.exec(s);
  if (!m) return undefined;
  const [, y, mo, d, h = "0", mi = "0", se = "0", frac = "", zone] = m;
  const Y = +y!,
    M = +mo!,
    D = +d!,
    H = +h,
    MI = +mi,
    S = +se;
  if (M < 1 || M > 12 || D < 1 || D > 31 || H > 23 || MI > 59 || S > 60) return undefined;
  let ms: number;
  // setFullYear, not Date.UTC(Y, ...) or new Date(Y, ...): those read a year 0-99 as 1900-1999 (0080 as 1980).
  if (zone) {
    const day = new Date(0);
    day.setUTCFullYear(Y, M - 1, D);
    if (day.getUTCDate() !== D) return undefined; // 2026-02-30 is no day
    ms = day.setUTCHours(H, MI, S);

    if (zone.toUpperCase() !== "Z") {
      const sign = zone[0] === "-" ? -1 : 1;
      const z = zone.slice(1).replace(":", "");
      const zh = +z.slice(0, 2);
      const zm = +z.slice(2, 4);
      if (zh > 23 || zm > 59) return undefined; // +25:00 or +05:99 is no zone: it would move the time by that much
      ms -= sign * (zh * 60 + zm) * 60_000;
    }
  } else {
    const local = new Date(2000, 0, 1);
    local.setFullYear(Y, M - 1, D);
    if (local.getDate() !== D) return undefined;
    ms = local.setHours(H, MI, S);
  }
  if (!Number.isFinite(ms)) return undefined;
  return BigInt(ms) * NS_PER_MS + BigInt(frac.padEnd(9, "0") || "0");
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d{1,3}))?$/i;

/**
 * A unix time with a fraction or an exponent (1765000000.5, what time.time() gives), read from its decimal text
 * exactly (never through a float); its whole part's digits give the unit as for an integer. Digits past the
 * nanosecond are dropped. `span`: the moment its last digit names.
 */
function unixDecimal(s: string): { ns: Nanos; span: Nanos } | undefined {
  const m = DECIMAL.exec(s);
  if (!m || (m[3] === undefined && m[4] === undefined)) return undefined;
  const [, sign, whole, frac = "", exp = "0"] = m;
  const digits = whole! + frac;
  const point = whole!.length + Number(exp);
  if (point > 40) return undefined;
  const intText = (point <= 0 ? "" : digits.slice(0, point).padEnd(point, "0")).replace(/^0+/, "");
  const fracText = point >= 0 ? digits.slice(point) : "0".repeat(-point) + digits;
  const n = Math.max(1, intText.length);
  const scale = n <= 11 ? 9 : n <= 14 ? 6 : n <= 17 ? 3 : n <= 19 ? 0 : -1;
  if (scale < 0) return undefined;
  const kept = fracText.replace(/0+$/, "").slice(0, scale);
  const ns = BigInt(intText || "0") * 10n ** BigInt(scale) + BigInt(kept.padEnd(scale, "0") || "0");
  return { ns: sign ? -ns : ns, span: 10n ** BigInt(scale - Math.min(scale, fracText.length)) };
}

/**
 * How long the moment a time's text names lasts, by the precision it is written in: a second for
 * "2026-05-01 09:30:15" (as times are displayed), a minute for "09:30", 1 ms for "…15.123" or a 13-digit unix time,
 * 1 ns for 9 fractional digits, a day for a date in a zone. Undefined for a local date alone, or text that is no time.
 */
export function timeSpan(text: string): Nanos | undefined {
  const s = text.trim();
  if (/^-?\d+$/.test(s)) {
    const digits = s.replace("-", "").length;
    return digits <= 11 ? NS_PER_SEC : digits <= 14 ? NS_PER_MS : digits <= 17 ? 1000n : 1n;
  }
  const unix = unixDecimal(s);
  if (unix) return unix.span;
  const m = DATE_TIME.exec(s);
  if (!m) return undefined;
  if (m[4] === undefined) return m[8] ? NS_PER_DAY : undefined; // a day in a given zone; a local one varies (DST)
  if (m[6] === undefined) return 60n * NS_PER_SEC;
  return 10n ** BigInt(9 - (m[7]?.length ?? 0));
}

/** The forms a time may take, as an error names them. */
export const UNIX_FORMS =
  'use RFC 3339 (2026-05-01T09:30:00Z), local "2026-05-01 09:30[:00]", or unix seconds (a fraction allowed: 1765000000.5), ms, us or ns';

export const InvalidTimeError = namedError<{ what: string; text: string; problem?: string }>(
  "InvalidTimeError",
  "input",
  (d) => `invalid ${d.what} ${JSON.stringify(d.text)}: ${d.problem ?? UNIX_FORMS}`,
);
export type InvalidTimeError = InstanceType<typeof InvalidTimeError>;

export function parseTimeOrThrow(text: string, what = "time"): Nanos {
  const ns = parseTimeUnchecked(text);
  if (ns !== undefined && !timeInRange(ns)) {
    throw new InvalidTimeError({ what, text, problem: `out of range: use a time from ${TIME_RANGE_TEXT}` });
  }
  const day = DATE_TIME.exec(text.trim());
  if (ns === undefined && day) {
    const [, y, mo, d] = day;
    const days = new Date(Date.UTC(+y!, +mo!, 0)).getUTCDate();
    if (+mo! >= 1 && +mo! <= 12 && (+d! < 1 || +d! > days)) {
      throw new InvalidTimeError({ what, text, problem: `${y}-${mo} has no day ${d} (it has ${days} days)` });
    }
  }
  if (ns === undefined) {
    throw new InvalidTimeError({ what, text });
  }
  return ns;
}

export const RANGES = { "1d": 1n, "7d": 7n, "30d": 30n, "1y": 365n, all: 0n } as const;
export type TimeRange = keyof typeof RANGES;

export function isTimeRange(s: string): s is TimeRange {
  return Object.hasOwn(RANGES, s);
}

/** Lower bound (inclusive) of a range relative to `now`; 0n for "all" (no bound). */
export function rangeStart(range: TimeRange, now: Nanos = nowNs()): Nanos | undefined {
  const days = RANGES[range];
  return days === 0n ? undefined : now - days * NS_PER_DAY;
}

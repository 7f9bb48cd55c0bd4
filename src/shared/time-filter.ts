// Time and message filters shared by every surface: --since/--until bounds (absolute or relative), role, sender.
import { namedError } from "./errors.ts";
import { asciiLower } from "./lower-case.ts";
import { isRole, type Role, type StoredMessage } from "./message.ts";
import {
  MAX_TIME_NS,
  MIN_TIME_NS,
  NS_PER_SEC,
  parseTimeUnchecked,
  rangeStart,
  timeSpan,
  type Nanos,
  type TimeRange,
} from "./time.ts";

/** A bound as a caller gives it: text (RFC 3339, a date, a relative form like 3d), unix time as a number, or UTC ns. */
export type TimeBound = string | bigint | number;

/**
 * What narrows a list of messages. Time bounds: since inclusive, until exclusive (UTC ns). The sender matches
 * regardless of ASCII case (`User` finds `user`), as SQLite's NOCASE compares: see sameSender.
 */
export interface MessageFilter {
  since?: Nanos;
  until?: Nanos;
  role?: Role;
  sender?: string;
}

/**
 * Whether a stored sender is the one a --sender filter names: ASCII letters in lower case (asciiLower), the fold of
 * SQLite's NOCASE, so every tier agrees on a match.
 */
export const sameSender = (stored: string | null | undefined, wanted: string): boolean =>
  stored != null && (stored === wanted || asciiLower(stored) === asciiLower(wanted));

const UNIT_SECONDS: Record<string, bigint> = {
  s: 1n,
  m: 60n,
  min: 60n,
  h: 3600n,
  d: 86_400n,
  w: 7n * 86_400n,
  y: 365n * 86_400n,
};
const RELATIVE = /^(\d{1,6})\s*(s|min|m|h|d|w|y)(?:\s+ago)?$/i;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A --since or --until value that is no time: `text` as given, or no text at all (a JSON value of another type).
 * `what` names the field as the caller knows it (default: the flag).
 */
export const InvalidTimeBoundError = namedError<{ kind: "since" | "until"; text?: string; what?: string }>(
  "InvalidTimeBoundError",
  "input",
  (d) =>
    d.text === undefined
      ? `invalid ${d.what ?? d.kind}: give a time as text, unix time or UTC nanoseconds`
      : `invalid ${d.what ?? `--${d.kind}`} ${JSON.stringify(d.text)}: use RFC 3339 (2026-05-01T09:30:00Z), a local date or time ("2026-05-01", "2026-05-01 09:30"), today, yesterday, or a relative form (30m, 12h, 3d, 2w, 1y)`,
);
export type InvalidTimeBoundError = InstanceType<typeof InvalidTimeBoundError>;

/** --since and --until that leave no time between them: most often the two given the wrong way round. */
export const EmptyTimeWindowError = namedError<{ since: string; until: string }>(
  "EmptyTimeWindowError",
  "input",
  (d) =>
    `--since ${JSON.stringify(d.since)} is not before --until ${JSON.stringify(d.until)}: no message can fall between them (are the two swapped?)`,
);
export type EmptyTimeWindowError = InstanceType<typeof EmptyTimeWindowError>;

/** A role or sender filter that names no role, or an empty sender. */
export const InvalidFilterError = namedError<{ field: "role"; value: unknown } | { field: "sender" }>(
  "InvalidFilterError",
  "input",
  (d) =>
    d.field === "role"
      ? `invalid role ${JSON.stringify(d.value)}: use user or assistant`
      : "invalid sender: give a non-empty name",
);
export type InvalidFilterError = InstanceType<typeof InvalidFilterError>;

/**
 * One --since or --until value. Relative forms (30m, 12h, 3d, 2w, 1y) count back from `now`; a zone-less
 * date or time is local, like --at. An upper bound means the end of the time given, to its precision (a date
 * alone: that day), so `--since 2026-05-01 --until 2026-05-01` is that whole day. Returns the bound as it is used:
 * since inclusive, until exclusive.
 */
export function parseTimeBound(text: string, kind: "since" | "until", now: Nanos): Nanos {
  return withinStored(unclampedBound(text, kind, now));
}

/**
 * A bound within the times memvoy stores: one before 1970 (1000y back) is 1970, one past 2262 is 2262. Outside,
 * it would not fit the 64-bit integers SQLite and the vector store compare with; inside, it selects the same.
 */
function withinStored(bound: Nanos): Nanos {
  return bound < MIN_TIME_NS ? MIN_TIME_NS : bound > MAX_TIME_NS ? MAX_TIME_NS : bound;
}

function unclampedBound(text: string, kind: "since" | "until", now: Nanos): Nanos {
  const s = text.trim();
  const rel = RELATIVE.exec(s);
  // 1M reads as a month to many people: refused, not taken for a minute (30m is minutes, 30d a month).
  if (rel && rel[2] !== "M") return now - BigInt(rel[1]!) * UNIT_SECONDS[rel[2]!.toLowerCase()]! * NS_PER_SEC;
  // The words in any case, as the relative forms take 3D: Today, NOW.
  const word = s.toLowerCase();
  if (word === "now") return kind === "until" ? now + 1n : now;
  if (word === "today" || word === "yesterday") {
    const d = new Date(Number(now / 1_000_000n));
    const midnight = new Date(d.getFullYear(), d.getMonth(), d.getDate() - (word === "yesterday" ? 1 : 0));
    return localDayBound(midnight, kind);
  }
  // A date before 1970 or past 2262 (--since 1900-01-01 for "from the start") is moved to the edge by
  // parseTimeBound, as the relative forms are.
  const t = parseTimeUnchecked(s);
  // A short number (--since 3) is no unix time anyone means: refused rather than read as 1970.
  const whole = /^-?(\d+)(?:\.\d+)?$/.exec(s);
  if (t === undefined || (whole && whole[1]!.length < 9)) {
    throw new InvalidTimeBoundError({ kind, text });
  }
  if (kind === "until" && DATE_ONLY.test(s)) {
    const [y, m, d] = s.split("-").map(Number);
    return localDayBound(new Date(y!, m! - 1, d!), "until");
  }
  return kind === "until" ? untilEnd(t, s) : t;
}

/**
 * The exclusive end of an --until time: past the whole moment its text names (timeSpan), so `--until` with a time
 * as history shows it ("2026-05-01 09:30:15", to the second) keeps the messages of that second, sent at 09:30:15.4.
 */
const untilEnd = (t: Nanos, text: string): Nanos => t + (timeSpan(text) ?? 1n);

function localDayBound(midnight: Date, kind: "since" | "until"): Nanos {
  const day =
    kind === "until" ? new Date(midnight.getFullYear(), midnight.getMonth(), midnight.getDate() + 1) : midnight;
  return BigInt(day.getTime()) * 1_000_000n;
}

export interface FilterInput {
  range?: TimeRange;
  since?: TimeBound;
  until?: TimeBound;
  role?: string;
  sender?: string;
}

/** The later of two optional bounds (at least one given). */
function later(a: Nanos | undefined, b: Nanos | undefined): Nanos {
  if (a === undefined) return b!;
  if (b === undefined) return a;
  return a > b ? a : b;
}

/** Resolve a caller's filter: bounds parsed, --range folded in (the narrower bound wins), role checked. */
export function resolveFilter(o: FilterInput, now: Nanos): MessageFilter {
  const f: MessageFilter = {};
  const bound = (v: TimeBound | undefined, kind: "since" | "until") => {
    if (v === undefined) return undefined;
    if (typeof v === "bigint") return withinStored(kind === "until" ? v + 1n : v);
    if (typeof v === "number" && Number.isFinite(v)) {
      // A JSON number: unix seconds (a fraction allowed), milliseconds, microseconds or nanoseconds, by its digits (like --at).
      const t = parseTimeUnchecked(String(v));
      if (t !== undefined) return withinStored(kind === "until" ? untilEnd(t, String(v)) : t);
    }
    if (typeof v !== "string") throw new InvalidTimeBoundError({ kind });
    return parseTimeBound(v, kind, now);
  };
  const since = bound(o.since, "since");
  const fromRange = o.range !== undefined ? rangeStart(o.range, now) : undefined;
  if (since !== undefined || fromRange !== undefined) f.since = later(since, fromRange);
  const until = bound(o.until, "until");
  if (until !== undefined) f.until = until;
  // Both moved to the same edge of the times memvoy stores (two dates before 1970) are not a swapped pair.
  const atEdge = since === until && (since === MIN_TIME_NS || since === MAX_TIME_NS);
  if (since !== undefined && until !== undefined && since >= until && !atEdge)
    throw new EmptyTimeWindowError({ since: String(o.since), until: String(o.until) });
  if (o.role !== undefined) {
    if (!isRole(o.role)) throw new InvalidFilterError({ field: "role", value: o.role });
    f.role = o.role;
  }
  if (o.sender !== undefined) {
    if (typeof o.sender !== "string" || o.sender === "") throw new InvalidFilterError({ field: "sender" });
    f.sender = o.sender;
  }
  return f;
}

export function isEmptyFilter(f: MessageFilter): boolean {
  return f.since === undefined && f.until === undefined && f.role === undefined && f.sender === undefined;
}

/** Whether a message passes the filter (for lists not filtered in SQL). */
export function passesFilter(m: Pick<StoredMessage, "sendAt" | "role" | "sender">, f: MessageFilter): boolean {
  if (f.since !== undefined && m.sendAt < f.since) return false;
  if (f.until !== undefined && m.sendAt >= f.until) return false;
  if (f.role !== undefined && m.role !== f.role) return false;
  if (f.sender !== undefined && !sameSender(m.sender, f.sender)) return false;
  return true;
}

// The max_chars budget: an answer pages through one list. Over budget it keeps as many whole items as fit and says
// truncated: true with next_offset; when not even one fits, the first is kept with its long texts cut fairly.
export interface Budgeted {
  value: Record<string, unknown>;
  text: string;
}

/** An answer that pages: `page(n)` holds the first `n` of the `total` items left from `offset` on. */
export interface Pages {
  offset: number;
  total: number;
  page(n: number): Record<string, unknown>;
}

const size = (v: unknown) => JSON.stringify(v).length;

/** Strings this short (times, roles, names) keep whole while longer ones have room to give. */
const SHORT = 40;
/** Fields that name or place something: cut only when nothing else is left to cut (a 128-character session id). */
const WHOLE = new Set(["id", "ids", "session", "anchor", "sendAt", "time", "cursor", "mode", "state", "kind", "role"]);
/** The ids an agent passes back (mode=get, mode=around): never cut. */
const HANDLES = new Set(["id", "ids", "anchor"]);

/** Fit an answer whose list is the field `list` of `value` (items from `offset` on); no list: only cut its texts. */
export function fitBudget(value: Record<string, unknown>, maxChars: number, list?: string, offset = 0): Budgeted {
  const items = list ? ((value[list] as unknown[]) ?? []) : [];
  return fitPages(
    { offset, total: items.length, page: (n) => (list ? { ...value, [list]: items.slice(0, n) } : value) },
    maxChars,
  );
}

export function fitPages(p: Pages, maxChars: number): Budgeted {
  const whole = p.page(p.total);
  if (size(whole) <= maxChars) return done(whole);
  const cut = (n: number) => ({
    ...p.page(n),
    truncated: true,
    ...(p.total > 0 ? { next_offset: p.offset + n } : {}),
  });
  let lo = 0;
  let hi = p.total;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (size(cut(mid)) <= maxChars) lo = mid;
    else hi = mid - 1;
  }
  if (lo > 0) return done(cut(lo));
  // Not even one item fits whole: the first one, cut, so that every page moves on.
  return done(cutFairly(cut(Math.min(1, p.total)), maxChars));
}

function done(value: Record<string, unknown>): Budgeted {
  return { value, text: JSON.stringify(value) };
}

/**
 * Cut the value's long strings to one common length, the longest that fits: a short field stays whole, and no
 * field is emptied while another keeps more than it. Short strings are cut too only when that is not enough, and the
 * names and times that place an item (a session id) only when even that is not enough; the ids to pass back, never.
 */
export function cutFairly<V>(value: V, maxChars: number): V {
  const passes: [number, ReadonlySet<string>][] = [
    [SHORT, WHOLE],
    [0, WHOLE],
    [0, HANDLES],
  ];
  let capped = value;
  for (const [shortest, kept] of passes) {
    const longest = maxLength(value, shortest, kept);
    let lo = 0;
    let hi = longest;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (size(capStrings(value, mid, shortest, kept)) <= maxChars) lo = mid;
      else hi = mid - 1;
    }
    capped = capStrings(value, lo, shortest, kept);
    if (size(capped) <= maxChars) return capped;
  }
  return capped;
}

const marker = (left: number) => `… [cut: ${left} more characters]`;

function cap(s: string, keep: number): string {
  if (s.length <= keep + marker(s.length - keep).length) return s;
  // Never split a surrogate pair.
  const end = keep > 0 && /[\uD800-\uDBFF]/.test(s[keep - 1]!) ? keep - 1 : keep;
  return s.slice(0, end) + marker(s.length - end);
}

function capStrings<V>(v: V, keep: number, shortest: number, kept: ReadonlySet<string>): V {
  if (typeof v === "string") return (v.length > shortest ? cap(v, keep) : v) as V;
  if (Array.isArray(v)) return v.map((x) => capStrings(x, keep, shortest, kept)) as V;
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.entries(v).map(([k, x]) => [k, kept.has(k) ? x : capStrings(x, keep, shortest, kept)]),
    ) as V;
  return v;
}

function maxLength(v: unknown, shortest: number, kept: ReadonlySet<string>): number {
  if (typeof v === "string") return v.length > shortest ? v.length : 0;
  if (Array.isArray(v)) return v.reduce((m: number, x) => Math.max(m, maxLength(x, shortest, kept)), 0);
  if (v && typeof v === "object")
    return maxLength(
      Object.entries(v).flatMap(([k, x]) => (kept.has(k) ? [] : [x])),
      shortest,
      kept,
    );
  return 0;
}

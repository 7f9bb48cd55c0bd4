// The max_chars budget: an answer whose JSON is over budget keeps as many whole items of its list as fit,
// says truncated: true and gives next_offset; a single item too big for the budget has its text cut.
export interface Budgeted {
  value: Record<string, unknown>;
  text: string;
}

const size = (v: unknown) => JSON.stringify(v).length;

/** `list` names the array field of `value` to page through; `offset` is where that list starts. */
export function fitBudget(value: Record<string, unknown>, maxChars: number, list?: string, offset = 0): Budgeted {
  if (size(value) <= maxChars) return done(value);
  const items = list ? ((value[list] as unknown[]) ?? []) : [];
  const page = (n: number): Record<string, unknown> => ({
    ...value,
    [list!]: items.slice(0, n),
    truncated: true,
    next_offset: offset + n,
  });
  if (list && items.length > 0) {
    let lo = 0;
    let hi = items.length;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (size(page(mid)) <= maxChars) lo = mid;
      else hi = mid - 1;
    }
    if (lo > 0) return done(page(lo));
    // Not even one item fits: cut the text of the first one.
    const first = cutText(items[0], maxChars - size(page(0)) - 64);
    const one = { ...page(1), [list]: [first] };
    if (size(one) <= maxChars) return done(one);
  }
  return done(cutText({ ...value, truncated: true }, maxChars - 64) as Record<string, unknown>);
}

/**
 * A turn context over budget drops its oldest history messages first: the summary, the input and the newest
 * messages are what the next turn needs. There is no offset to page with, so no next_offset.
 */
export function fitContextBudget(value: Record<string, unknown>, maxChars: number): Budgeted {
  if (size(value) <= maxChars) return done(value);
  const messages = (value.messages as { kind?: string }[]) ?? [];
  const history = messages.filter((m) => m.kind === "history");
  const rest = messages.filter((m) => m.kind !== "history");
  const keep = (n: number) => ({
    ...value,
    messages: [...history.slice(history.length - n), ...rest],
    truncated: true,
  });
  let lo = 0;
  let hi = history.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (size(keep(mid)) <= maxChars) lo = mid;
    else hi = mid - 1;
  }
  const kept = keep(lo);
  if (size(kept) <= maxChars) return done(kept);
  return done(cutText(kept, maxChars - 64) as Record<string, unknown>);
}

function done(value: Record<string, unknown>): Budgeted {
  return { value, text: JSON.stringify(value) };
}

/** Shorten the longest string fields until the value fits `room` characters of JSON. */
function cutText(value: unknown, room: number): unknown {
  const copy = structuredClone(value) as Record<string, unknown>;
  for (let guard = 0; guard < 64 && size(copy) > Math.max(room, 0); guard++) {
    const longest = longestString(copy);
    if (!longest) break;
    const [holder, key] = longest;
    const s = holder[key] as string;
    const excess = size(copy) - Math.max(room, 0);
    const keep = Math.max(0, s.length - excess - 40);
    holder[key] = `${s.slice(0, keep)}… [cut: ${s.length - keep} more characters]`;
    if (keep === 0) break;
  }
  return copy;
}

function longestString(
  v: unknown,
  best?: [Record<string, unknown>, string],
): [Record<string, unknown>, string] | undefined {
  if (Array.isArray(v)) for (const x of v) best = longestString(x, best);
  else if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    for (const [k, x] of Object.entries(o)) {
      if (typeof x === "string" && x.length > 80 && (!best || x.length > (best[0][best[1]] as string).length))
        best = [o, k];
      else if (typeof x === "object") best = longestString(x, best);
    }
  }
  return best;
}

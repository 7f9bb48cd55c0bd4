// What session_context and summary page through under a max_chars budget: a turn context's messages from the
// newest back (the input and the summary first), and a summary document's entries in order.
import type { SummaryJson, TurnContextJson } from "../app/api/json-types.ts";
import type { Pages } from "./budget.ts";

/** The turn context with `offset` messages left out from the end; the system section comes with the first page only. */
export function contextPages(c: TurnContextJson, offset: number): Pages {
  const { summaryFilter, summaryProblem, ...rest } = c;
  const end = Math.max(0, c.messages.length - offset);
  return {
    offset,
    total: end,
    page: (n) => ({
      ...rest,
      messages: c.messages.slice(end - n, end),
      system: offset === 0 ? c.system : "",
      ...(offset === 0 && summaryFilter !== undefined ? { summaryFilter } : {}),
      ...(offset === 0 && summaryProblem !== undefined ? { summaryProblem } : {}),
      // Past the end, the page would read as an empty session.
      ...(offset > 0 && end === 0
        ? { emptyReason: `offset ${offset} is past the end of the context's ${counted(c.messages.length, "message")}` }
        : {}),
    }),
  };
}

/**
 * The summary with its entries from `offset` on: each item of a list field (key_decisions, past_discussions) and
 * each other field (current_discussion) is one entry. A page leaves out the fields none of its entries is in.
 */
export function summaryPages(s: SummaryJson, offset: number): Pages {
  // Why a summary or its cursor could not be read comes along with its state.
  const head = { session: s.session, state: s.state, ...(s.problem !== undefined ? { problem: s.problem } : {}) };
  const tail = {
    cursor: s.cursor,
    ...(s.cursorProblem !== undefined ? { cursorProblem: s.cursorProblem } : {}),
    due: s.due,
  };
  const doc = s.summary;
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) {
    const total = offset === 0 ? 1 : 0;
    const past =
      offset > 0
        ? {
            emptyReason: doc
              ? `offset ${offset} is past the end of the summary's 1 entry`
              : `offset ${offset} is past the end: the session has no summary`,
          }
        : {};
    return { offset, total, page: (n) => ({ ...head, summary: n > 0 ? doc : null, ...tail, ...past }) };
  }
  const entries = Object.entries(doc).flatMap(([key, value]) =>
    Array.isArray(value) ? value.map((item) => ({ key, item, list: true })) : [{ key, item: value, list: false }],
  );
  const left = entries.slice(offset);
  const page = (n: number) => {
    if (offset === 0 && n === entries.length) return { ...head, summary: doc, ...tail };
    const part: Record<string, unknown> = {};
    for (const e of left.slice(0, n)) {
      if (e.list) ((part[e.key] ??= []) as unknown[]).push(e.item);
      else part[e.key] = e.item;
    }
    const past =
      offset > 0 && left.length === 0
        ? {
            emptyReason: `offset ${offset} is past the end of the summary's ${counted(entries.length, "entry", "entries")}`,
          }
        : {};
    return { ...head, summary: part, ...tail, ...past };
  };
  return { offset, total: left.length, page };
}

/** "1 message", "3 messages". */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

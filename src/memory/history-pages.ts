// `history` of a large session in pages, oldest first: a million messages are never held at once.
import type { StoredMessage } from "../shared/message.ts";
import { isEmptyFilter, type MessageFilter } from "../shared/time-filter.ts";
import type { MessageRange } from "../storage/ports/message-rows.ts";

/** Messages read at a time. */
export const HISTORY_PAGE = 10_000;

/** One listing of a session's messages (the home's SQLite or the shared archive). */
export type ListMessages = (range: MessageRange) => StoredMessage[] | Promise<StoredMessage[]>;

export interface HistoryPagesOptions {
  all?: boolean;
  last?: number;
  filter?: MessageFilter;
  /** The context window's size (limits.max_history_messages), for neither all, last nor a filter. */
  window: number;
}

/**
 * The messages `history` shows (as readSessionHistory selects them), in pages of at most `page`, oldest first.
 * Every message or the newest N: the newest one at the start bounds the read, so messages added meanwhile are
 * not shown, as they would not be in one read. The newest N past one page are counted back first, a page at a time.
 */
export async function* historyPages(
  list: ListMessages,
  o: HistoryPagesOptions,
  page = HISTORY_PAGE,
): AsyncGenerator<StoredMessage[]> {
  const filter = o.filter && !isEmptyFilter(o.filter) ? o.filter : undefined;
  const range: MessageRange = filter ? { filter } : {};
  if (!o.all && o.last === undefined && !filter) {
    yield (await list({ recentOnly: true, newestFirst: true, limit: o.window })).reverse();
    return;
  }
  const last = o.all ? undefined : o.last;
  if (last !== undefined && last <= page) {
    yield (await list({ ...range, newestFirst: true, limit: last })).reverse();
    return;
  }
  const [newest] = await list({ ...range, newestFirst: true, limit: 1 });
  if (!newest) return;
  let afterSeq: bigint | undefined;
  if (last !== undefined) {
    let counted = 0;
    for (let beforeSeq = newest.seq + 1n; counted < last; ) {
      const back = await list({ ...range, newestFirst: true, beforeSeq, limit: Math.min(page, last - counted) });
      if (back.length === 0) break;
      counted += back.length;
      beforeSeq = back.at(-1)!.seq;
      afterSeq = beforeSeq - 1n;
    }
  }
  for (;;) {
    const rows = await list({ ...range, ...(afterSeq !== undefined && { afterSeq }), limit: page });
    const end = rows.findIndex((m) => m.seq > newest.seq);
    if (end >= 0) rows.length = end;
    if (rows.length > 0) yield rows;
    if (end >= 0 || rows.length < page) return;
    afterSeq = rows.at(-1)!.seq;
  }
}

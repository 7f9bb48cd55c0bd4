// Reading messages by id: full messages for a list of ids, and the timeline around one message.
import { namedError } from "../shared/errors.ts";
import type { StoredMessage } from "../shared/message.ts";
import { getMessagesById, listSessionMessages } from "../storage/sqlite/messages-repo.ts";
import type { MemoryContext } from "./memory-context.ts";

/** No message has this id in the home (`where`). */
export const UnknownMessageError = namedError<{ id: string; where: string }>(
  "UnknownMessageError",
  "input",
  (d) => `no message ${JSON.stringify(d.id)} in ${d.where}`,
);
export type UnknownMessageError = InstanceType<typeof UnknownMessageError>;

export interface Around {
  /** The message asked for. */
  anchor: StoredMessage;
  /** Up to `before` messages, the anchor, then up to `after` messages, in session order. */
  messages: StoredMessage[];
}

export function getMessages(ctx: MemoryContext, ids: readonly string[]): StoredMessage[] {
  return getMessagesById(ctx.db, ids);
}

export function messagesAround(ctx: MemoryContext, id: string, before: number, after: number): Around {
  const [anchor] = getMessagesById(ctx.db, [id]);
  if (!anchor) throw new UnknownMessageError({ id, where: ctx.paths.home });
  const earlier =
    before > 0
      ? listSessionMessages(ctx.db, anchor.session, {
          beforeSeq: anchor.seq,
          newestFirst: true,
          limit: before,
        }).reverse()
      : [];
  const later = after > 0 ? listSessionMessages(ctx.db, anchor.session, { afterSeq: anchor.seq, limit: after }) : [];
  return { anchor, messages: [...earlier, anchor, ...later] };
}

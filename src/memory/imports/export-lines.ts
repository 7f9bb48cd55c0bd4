// memvoy's export format: for each session (sorted by id) a session line, then its messages in session order.
import type { StoredMessage } from "../../shared/message.ts";
import { assertSessionId } from "../../shared/session-id.ts";
import { nsToRfc3339 } from "../../shared/time.ts";
import { refuseSessionSymlinks } from "../../storage/history/no-symlink.ts";
import { countSessionMessages, listSessionMessages } from "../../storage/sqlite/messages-repo.ts";
import { listSessionMeta, type SessionMeta } from "../../storage/sqlite/session-meta-repo.ts";
import type { MemoryContext } from "../memory-context.ts";
import { sessionExists, UnknownSessionError } from "../session-admin.ts";
import { discoverSessions, ensureBackfilled, listSessions } from "../sessions-list.ts";
import { JSONL_SOURCE } from "../../shared/jsonl-source.ts";

export interface ExportOptions {
  /** These sessions; every session when absent. */
  sessions?: readonly string[];
  /** Messages sent at or after this time (UTC ns). */
  since?: bigint;
  /** Messages sent before this time (UTC ns). */
  until?: bigint;
}

export interface ExportSession {
  id: string;
  meta: SessionMeta;
  messages: StoredMessage[];
  /** More messages of the session given just before (a large session comes in pages): no session line again. */
  continues?: true;
  /** The session's messages in the export, over all its pages (absent: `messages` are all of them). */
  total?: number;
}

/** Messages read at a time for the export: a session of a million messages is never held whole. */
export const EXPORT_PAGE = 10_000;

export function sessionLine(id: string, meta: SessionMeta): string {
  const o: Record<string, string> = { type: "session", id };
  if (meta.source !== undefined && meta.source !== JSONL_SOURCE) o.source = meta.source;
  if (meta.title !== undefined) o.title = meta.title;
  if (meta.project !== undefined) o.project = meta.project;
  if (meta.parent !== undefined) o.parent = meta.parent;
  return JSON.stringify(o);
}

export function messageLine(m: StoredMessage): string {
  const o: Record<string, string> = {
    type: "message",
    id: m.id,
    session: m.session,
    role: m.role,
    content: m.content,
    sendAt: nsToRfc3339(m.sendAt),
  };
  if (m.sender !== undefined) o.sender = m.sender;
  return JSON.stringify(o);
}

/** The JSONL lines (without newline) of one exported session, or of a further page of it. */
export function sessionLines(s: ExportSession): string[] {
  const lines = s.messages.map(messageLine);
  return s.continues ? lines : [sessionLine(s.id, s.meta), ...lines];
}

/** The sessions to export, in id order, each read when reached in pages of EXPORT_PAGE messages. */
export function* exportSessions(ctx: MemoryContext, o: ExportOptions = {}): Generator<ExportSession> {
  let ids: string[];
  if (o.sessions && o.sessions.length > 0) {
    for (const id of o.sessions) {
      assertSessionId(id);
      if (!sessionExists(ctx, id)) throw new UnknownSessionError({ session: id, home: ctx.paths.home });
      refuseSessionSymlinks(ctx.paths.session(id)); // as history refuses it
    }
    ids = [...new Set(o.sessions)];
  } else {
    discoverSessions(ctx);
    ids = listSessions(ctx).map((s) => s.id);
  }
  ids.sort(byCodeUnit);
  const metas = listSessionMeta(ctx.db);
  const named = o.sessions !== undefined && o.sessions.length > 0;
  const bounded = o.since !== undefined || o.until !== undefined;
  for (const id of ids) {
    ensureBackfilled(ctx, id);
    const meta = metas.get(id) ?? {};
    let given = false;
    for (let afterSeq: bigint | undefined; ; ) {
      const page = listSessionMessages(ctx.db, id, { afterSeq, limit: EXPORT_PAGE });
      const last = page.length < EXPORT_PAGE;
      const messages = bounded ? page.filter((m) => inBounds(m, o)) : page;
      // A session with nothing in --since/--until is left out unless it was named.
      if (messages.length > 0 || (last && !given && (named || !bounded))) {
        const total = given || last ? undefined : countSessionMessages(ctx.db, id, o.since, o.until);
        yield given
          ? { id, meta, messages, continues: true }
          : { id, meta, messages, ...(total !== undefined && { total }) };
        given = true;
      }
      if (last) break;
      afterSeq = page.at(-1)!.seq;
    }
  }
}

const inBounds = (m: StoredMessage, o: ExportOptions) =>
  (o.since === undefined || m.sendAt >= o.since) && (o.until === undefined || m.sendAt < o.until);

/** Session ids in export order (UTF-16 code units, as the format's readers sort them). */
export const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The session's messages within --since/--until; undefined when none are and the session was not named. */
export function exportedMessages(messages: StoredMessage[], o: ExportOptions): StoredMessage[] | undefined {
  if (o.since === undefined && o.until === undefined) return messages;
  const kept = messages.filter((m) => inBounds(m, o));
  return kept.length === 0 && !(o.sessions && o.sessions.length > 0) ? undefined : kept;
}

// memvoy's export format: for each session (sorted by id) a session line, then its messages in session order.
import type { StoredMessage } from "../../shared/message.ts";
import { assertSessionId } from "../../shared/session-id.ts";
import { nsToRfc3339 } from "../../shared/time.ts";
import { listSessionMessages } from "../../storage/sqlite/messages-repo.ts";
import { listSessionMeta, type SessionMeta } from "../../storage/sqlite/session-meta-repo.ts";
import type { MemoryContext } from "../memory-context.ts";
import { sessionExists, UnknownSessionError } from "../session-admin.ts";
import { discoverSessions, ensureBackfilled, listSessions } from "../sessions-list.ts";

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
}

export function sessionLine(id: string, meta: SessionMeta): string {
  const o: Record<string, string> = { type: "session", id };
  if (meta.source !== undefined) o.source = meta.source;
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

/** The JSONL lines (without newline) of one exported session. */
export function sessionLines(s: ExportSession): string[] {
  return [sessionLine(s.id, s.meta), ...s.messages.map(messageLine)];
}

/** The sessions to export, in id order, each loaded when reached (one session in memory at a time). */
export function* exportSessions(ctx: MemoryContext, o: ExportOptions = {}): Generator<ExportSession> {
  let ids: string[];
  if (o.sessions && o.sessions.length > 0) {
    for (const id of o.sessions) {
      assertSessionId(id);
      if (!sessionExists(ctx, id)) throw new UnknownSessionError({ session: id, home: ctx.paths.home });
    }
    ids = [...new Set(o.sessions)];
  } else {
    discoverSessions(ctx);
    ids = listSessions(ctx).map((s) => s.id);
  }
  ids.sort(byCodeUnit);
  const metas = listSessionMeta(ctx.db);
  for (const id of ids) {
    ensureBackfilled(ctx, id);
    const messages = exportedMessages(listSessionMessages(ctx.db, id), o);
    if (messages) yield { id, meta: metas.get(id) ?? {}, messages };
  }
}

/** Session ids in export order (UTF-16 code units, as the format's readers sort them). */
export const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The session's messages within --since/--until; undefined when none are and the session was not named. */
export function exportedMessages(messages: StoredMessage[], o: ExportOptions): StoredMessage[] | undefined {
  if (o.since === undefined && o.until === undefined) return messages;
  const kept = messages.filter(
    (m) => (o.since === undefined || m.sendAt >= o.since) && (o.until === undefined || m.sendAt < o.until),
  );
  return kept.length === 0 && !(o.sessions && o.sessions.length > 0) ? undefined : kept;
}

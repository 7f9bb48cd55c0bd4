// Rows of the PostgreSQL archive as the port's shapes (int8 read as bigint, booleans native).
import type { Role, StoredMessage } from "../../shared/message.ts";
import type { MessageFilter } from "../../shared/time-filter.ts";
import type { ErrorOutcome, ErrorRow, SessionRow, SummaryRunRow } from "../ports/archive-port.ts";

export const MESSAGE_COLS = "m.seq, m.id, m.session_id, m.role, m.content, m.send_at, m.sender, m.recent";

export interface PgMessage {
  seq: bigint;
  id: string;
  session_id: string;
  role: string;
  content: string;
  send_at: bigint;
  sender: string | null;
  recent: boolean;
}

export function pgStored(r: PgMessage): StoredMessage {
  const m: StoredMessage = {
    seq: r.seq,
    id: r.id,
    session: r.session_id,
    role: r.role as Role,
    content: r.content,
    sendAt: r.send_at,
    recent: r.recent,
  };
  if (r.sender !== null) m.sender = r.sender;
  return m;
}

export const SESSION_COLS = "id, created_at, updated_at, last_send_at, message_count";

export const pgSession = (r: {
  id: string;
  created_at: bigint;
  updated_at: bigint;
  last_send_at: bigint;
  message_count: bigint;
}): SessionRow => ({
  id: r.id,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  lastSendAt: r.last_send_at,
  messageCount: Number(r.message_count),
});

export const ERROR_COLS =
  "seq, id, tool, signature, error, cause, fix, outcome, keywords, created_at, updated_at, last_hit_at, expires_at, hits, occurrences, revision, embedded_by";

export function pgError(r: Record<string, unknown>): ErrorRow {
  return {
    seq: r.seq as bigint,
    id: r.id as string,
    tool: r.tool as string,
    signature: r.signature as string,
    error: r.error as string,
    cause: r.cause as string | null,
    fix: r.fix as string,
    outcome: r.outcome as ErrorOutcome,
    keywords: JSON.parse(r.keywords as string) as string[],
    createdAt: r.created_at as bigint,
    updatedAt: r.updated_at as bigint,
    lastHitAt: r.last_hit_at as bigint,
    expiresAt: r.expires_at as bigint,
    hits: Number(r.hits),
    occurrences: Number(r.occurrences),
    revision: Number(r.revision),
    embeddedBy: r.embedded_by as string | null,
  };
}

export function pgSummaryRun(r: Record<string, unknown>): SummaryRunRow {
  const row: SummaryRunRow = {
    session: r.session_id as string,
    startedAt: r.started_at as bigint,
    outcome: r.outcome as string,
    chunksDone: Number(r.chunks_done),
    chunksTotal: Number(r.chunks_total),
    calls: Number(r.calls),
    inputTokens: Number(r.input_tokens),
    outputTokens: Number(r.output_tokens),
  };
  if (r.finished_at !== null) row.finishedAt = r.finished_at as bigint;
  if (r.error !== null) row.error = r.error as string;
  if (r.position_seq !== null && r.position_id !== null && r.cursor_text !== null)
    row.position = { seq: r.position_seq as bigint, id: r.position_id as string, cursor: r.cursor_text as string };
  if (r.pending_seq !== null && r.pending_id !== null && r.pending_cursor !== null && r.pending_sha !== null)
    row.pending = {
      seq: r.pending_seq as bigint,
      id: r.pending_id as string,
      cursor: r.pending_cursor as string,
      sha: r.pending_sha as string,
    };
  return row;
}

/** ` AND ...` conditions of a MessageFilter with $n placeholders appended to `args`. */
export function pgFilter(args: unknown[], f: MessageFilter | undefined, prefix = "m."): string {
  let out = "";
  const add = (clause: string, value: unknown) => {
    if (value === undefined) return;
    args.push(value);
    out += ` AND ${prefix}${clause} $${args.length}`;
  };
  add("send_at >=", f?.since);
  add("send_at <", f?.until);
  add("role =", f?.role);
  add("sender =", f?.sender);
  return out;
}

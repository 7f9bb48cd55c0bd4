// Rows of the PostgreSQL archive as the port's shapes (int8 read as bigint, booleans native).
import type { Role, StoredMessage } from "../../shared/message.ts";
import type { MessageFilter } from "../../shared/time-filter.ts";
import type { ErrorOutcome, ErrorRow, MessageRow, SummaryRunRow } from "../ports/archive-port.ts";

export const MESSAGE_COLS = "m.seq, m.id, m.session_id, m.role, m.content, m.send_at, m.sender, m.recent";

export type PgMessage = MessageRow<boolean>;

/** Column for column (snake case to the port's names); a null sender is left out. */
export function pgStored({ session_id, send_at, sender, role, ...rest }: PgMessage): StoredMessage {
  const out: StoredMessage = { ...rest, session: session_id, role: role as Role, sendAt: send_at };
  return sender === null ? out : { ...out, sender };
}

/** The sessions columns named as SessionRow's fields, so rows need no mapping. */
export const SESSION_COLS =
  'id, created_at AS "createdAt", updated_at AS "updatedAt", last_send_at AS "lastSendAt", message_count::float8 AS "messageCount"';

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

/** The summary_runs columns named as SummaryRunRow's fields; position and pending come back flat. */
export const SUMMARY_RUN_COLS = `session_id AS session, started_at AS "startedAt", finished_at AS "finishedAt", outcome, error,
  chunks_done AS "chunksDone", chunks_total AS "chunksTotal", calls, input_tokens::float8 AS "inputTokens",
  output_tokens::float8 AS "outputTokens", position_seq, position_id, cursor_text, pending_seq, pending_id,
  pending_cursor, pending_sha`;

type FlatRun = Omit<SummaryRunRow, "finishedAt" | "error" | "position" | "pending"> &
  Record<"finishedAt" | "position_seq" | "pending_seq", bigint | null> &
  Record<"error" | "position_id" | "cursor_text" | "pending_id" | "pending_cursor" | "pending_sha", string | null>;

export function pgSummaryRun(flat: FlatRun): SummaryRunRow {
  const { finishedAt, error, position_seq, position_id, cursor_text, ...run } = flat;
  const { pending_seq, pending_id, pending_cursor, pending_sha, ...row } = run;
  const out: SummaryRunRow = { ...row };
  if (finishedAt !== null) out.finishedAt = finishedAt;
  if (error !== null) out.error = error;
  const hasPosition = position_seq !== null && position_id !== null && cursor_text !== null;
  if (hasPosition) out.position = { seq: position_seq, id: position_id, cursor: cursor_text };
  const hasPending = pending_seq !== null && pending_id !== null && pending_cursor !== null && pending_sha !== null;
  if (hasPending) out.pending = { seq: pending_seq, id: pending_id, cursor: pending_cursor, sha: pending_sha };
  return out;
}

const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

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
  if (f?.sender !== undefined) {
    // ASCII case only, as the embedded archive (SQLite NOCASE) and sameSender compare: not the server's locale.
    args.push(f.sender);
    const fold = (e: string) => `translate(${e}, '${UPPER}', '${UPPER.toLowerCase()}')`;
    out += ` AND ${fold(`${prefix}sender`)} = ${fold(`$${args.length}`)}`;
  }
  return out;
}

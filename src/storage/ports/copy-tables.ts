// The small tables a copy between archives moves whole (messages move in batches, see ArchivePort):
// their columns, the same names in every backend, and which hold booleans (0/1 in SQLite).
export interface CopyTable {
  key: string;
  columns: readonly string[];
  booleans?: readonly string[];
}

export const COPY_TABLES = {
  sessions: {
    key: "id",
    columns: [
      "id",
      "created_at",
      "updated_at",
      "last_send_at",
      "message_count",
      "source",
      "title",
      "title_fallback",
      "project",
      "parent",
    ],
    booleans: ["title_fallback"],
  },
  message_meta: { key: "session_id", columns: ["session_id", "start_at", "start_seq"] },
  untimed_messages: { key: "seq", columns: ["seq", "session_id"] },
  embed_state: { key: "key", columns: ["key", "value"] },
  /** Messages still waiting for a vector: without them a copy's target would never embed those. */
  embed_queue: { key: "seq", columns: ["seq", "attempts", "last_error", "next_try_at"] },
  tombstones: { key: "hash", columns: ["hash", "removed_at"] },
  llm_usage: {
    key: "id",
    columns: ["id", "at", "session_id", "purpose", "model", "input_tokens", "output_tokens"],
  },
  summary_runs: {
    key: "session_id",
    columns: [
      "session_id",
      "started_at",
      "finished_at",
      "outcome",
      "error",
      "chunks_done",
      "chunks_total",
      "calls",
      "input_tokens",
      "output_tokens",
      "position_seq",
      "position_id",
      "cursor_text",
      "pending_seq",
      "pending_id",
      "pending_cursor",
      "pending_sha",
    ],
  },
  error_records: {
    key: "seq",
    columns: [
      "seq",
      "id",
      "tool",
      "signature",
      "error",
      "cause",
      "fix",
      "outcome",
      "keywords",
      "created_at",
      "updated_at",
      "last_hit_at",
      "expires_at",
      "hits",
      "occurrences",
      "revision",
      "embedded_by",
    ],
  },
} as const satisfies Record<string, CopyTable>;

export type CopyTableName = keyof typeof COPY_TABLES;
export type CopyRow = Record<string, string | bigint | number | boolean | null>;

/** The order a copy moves them in (sessions after messages would also do: rows are upserted). */
export const COPY_ORDER: readonly CopyTableName[] = [
  "sessions",
  "message_meta",
  "untimed_messages",
  "embed_state",
  "embed_queue",
  "tombstones",
  "llm_usage",
  "summary_runs",
  "error_records",
];

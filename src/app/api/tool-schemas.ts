// valibot schemas of the MCP tools' arguments (flat objects: the shape agents' clients handle best).
// Which fields each mode needs is checked by the tool itself, with one sentence naming the field.
import * as v from "valibot";
import { LIMITS, MessageInput, MessageId, SessionId, whole } from "./schemas.ts";

export const BUDGET = { default: 8000, min: 500, max: 200_000 } as const;

const described = (what: string, min: number, max: number, description: string) =>
  v.pipe(whole(what, min, max), v.description(description));

const maxChars = v.optional(
  described(
    "max_chars",
    BUDGET.min,
    BUDGET.max,
    `Budget for the answer in characters (default ${BUDGET.default}); a cut answer says truncated and gives next_offset.`,
  ),
);
const offset = v.optional(described("offset", 0, 100_000, "Skip this many items (the next_offset of a cut answer)."));

export const ChatHistoryArgs = v.strictObject({
  mode: v.pipe(
    v.picklist(
      ["search", "recent", "around", "get", "sessions"],
      "mode must be search, recent, around, get or sessions",
    ),
    v.description(
      "search: find messages (compact rows); recent: the last N of a session; around: the messages before and after a message id; get: full messages by id; sessions: the sessions.",
    ),
  ),
  query: v.optional(v.pipe(v.string("query must be text"), v.description("search: what to look for, plain text."))),
  match: v.optional(
    v.pipe(
      v.picklist(["keyword", "semantic", "hybrid"], "match must be keyword, semantic or hybrid"),
      v.description("search: keyword, semantic or hybrid (default)."),
    ),
  ),
  session: v.optional(
    v.pipe(SessionId, v.description("search: only this session (default all); recent: the session.")),
  ),
  range: v.optional(
    v.pipe(
      v.picklist(["1d", "7d", "30d", "1y", "all"], "range must be 1d, 7d, 30d, 1y or all"),
      v.description("search: how far back (default all)."),
    ),
  ),
  since: v.optional(
    v.pipe(
      v.string("since must be a time"),
      v.description("search: only messages at or after this time (RFC 3339 or YYYY-MM-DD)."),
    ),
  ),
  until: v.optional(v.pipe(v.string("until must be a time"), v.description("search: only messages before this time."))),
  limit: v.optional(
    described(
      "limit",
      1,
      100,
      "search: at most this many rows (default 10); recent: the last N messages (default 10).",
    ),
  ),
  id: v.optional(v.pipe(MessageId, v.description("around: the message id (from a search row)."))),
  before: v.optional(described("before", 0, LIMITS.around, "around: messages before (default 5).")),
  after: v.optional(described("after", 0, LIMITS.around, "around: messages after (default 5).")),
  ids: v.optional(
    v.pipe(
      v.array(MessageId, "ids must be a list of message ids"),
      v.maxLength(LIMITS.getIds, `ids must hold at most ${LIMITS.getIds} ids`),
      v.description("get: the message ids."),
    ),
  ),
  offset,
  max_chars: maxChars,
});

export const AddMessagesArgs = v.strictObject({
  session: SessionId,
  messages: v.pipe(
    v.array(MessageInput, "messages must be a list of messages"),
    v.minLength(1, "messages is empty"),
    v.maxLength(1000, "messages must hold at most 1000 messages"),
  ),
  max_chars: maxChars,
});

export const SessionContextArgs = v.strictObject({
  session: SessionId,
  input: v.optional(v.pipe(v.string("input must be text"), v.description("The user's next input."))),
  max_chars: maxChars,
});

export const ErrorMemoryArgs = v.strictObject({
  mode: v.pipe(
    v.picklist(["lookup", "record"], "mode must be lookup or record"),
    v.description("lookup: find fixes for an error (restarts their TTL); record: store an error and its fix."),
  ),
  error: v.optional(v.pipe(v.string("error must be text"), v.description("lookup and record: the error text."))),
  tool: v.optional(
    v.pipe(
      v.string("tool must be text"),
      v.description("lookup: only this tool (optional); record: the tool that failed."),
    ),
  ),
  fix: v.optional(v.pipe(v.string("fix must be text"), v.description("record: what fixed it."))),
  cause: v.optional(v.pipe(v.string("cause must be text"), v.description("record: why it happened."))),
  outcome: v.optional(
    v.pipe(
      v.picklist(["resolved", "failed", "abandoned"], "outcome must be resolved, failed or abandoned"),
      v.description("record: resolved (default), failed or abandoned."),
    ),
  ),
  keywords: v.optional(
    v.pipe(
      v.array(v.string("keywords must be words"), "keywords must be a list of words"),
      v.description("record: words to find it by."),
    ),
  ),
  limit: v.optional(described("limit", 1, 20, "lookup: at most this many records (default 5).")),
  max_chars: maxChars,
});

export const SummaryArgs = v.strictObject({
  session: SessionId,
  max_chars: maxChars,
});

export type ChatHistory = v.InferOutput<typeof ChatHistoryArgs>;
export type AddMessages = v.InferOutput<typeof AddMessagesArgs>;
export type SessionContext = v.InferOutput<typeof SessionContextArgs>;
export type ErrorMemory = v.InferOutput<typeof ErrorMemoryArgs>;
export type SummaryRequest = v.InferOutput<typeof SummaryArgs>;

// valibot schemas of the MCP tools' arguments (flat objects: the shape agents' clients handle best).
// Which fields each mode needs is checked by the tool itself, with one sentence naming the field.
import * as v from "valibot";
import { Keywords, LIMITS, MessageInput, MessageId, SessionId, TIME_BOUNDS, whole } from "./schemas.ts";
import { MAX_QUERY_CHARS } from "../search-option-error.ts";
import {
  errorText,
  MAX_KEYWORD_CHARS,
  MAX_KEYWORDS,
  MAX_TEXT_BYTES,
  MAX_TOOL_CHARS,
  toolText,
} from "../../memory/error-memory/error-input.ts";

export const BUDGET = { default: 8000, min: 500, max: 200_000 } as const;

const described = (what: string, min: number, max: number, description: string) =>
  v.pipe(whole(what, min, max), v.description(description));

const orList = (items: readonly string[]) => `${items.slice(0, -1).join(", ")} or ${items.at(-1)}`;

/** One of `choices`, refused with a sentence that lists them. */
const choice = <const C extends readonly [string, ...string[]]>(what: string, choices: C, description: string) =>
  v.pipe(v.picklist(choices, `${what} must be ${orList(choices)}`), v.description(description));

/** A string, refused with "`what` must be `kind`". */
const text = (what: string, description: string, kind = "text") =>
  v.pipe(v.string(`${what} must be ${kind}`), v.description(description));

const budget = (cut: string) =>
  v.optional(
    described(
      "max_chars",
      BUDGET.min,
      BUDGET.max,
      `Budget for the answer in characters (default ${BUDGET.default}); ${cut}.`,
    ),
  );
const maxChars = budget("a cut answer says truncated and gives next_offset");
const offsetOf = (description: string) => v.optional(described("offset", 0, 100_000, description));
const offset = offsetOf(
  "Skip this many items (the next_offset of a cut answer); recent counts them from the newest message back, around from its anchor outward.",
);

export const ChatHistoryArgs = v.strictObject({
  mode: choice(
    "mode",
    ["search", "recent", "around", "get", "sessions"],
    "search: find messages (compact rows); recent: the last N of a session; around: the messages before and after a message id; get: full messages by id; sessions: the sessions.",
  ),
  query: v.optional(
    v.pipe(
      v.string("query must be text"),
      v.maxLength(MAX_QUERY_CHARS, (i) => `query must be at most ${MAX_QUERY_CHARS} characters (it has ${i.received})`),
      v.description(`search: what to look for, plain text (at most ${MAX_QUERY_CHARS} characters).`),
    ),
  ),
  match: v.optional(
    choice("match", ["keyword", "semantic", "hybrid"], "search: keyword, semantic or hybrid (default)."),
  ),
  session: v.optional(
    v.pipe(SessionId, v.description("search: only this session (default all); recent: the session.")),
  ),
  range: v.optional(choice("range", ["1d", "7d", "30d", "1y", "all"], "search: how far back (default all).")),
  since: v.optional(text("since", `search: ${TIME_BOUNDS.since}`, "a time")),
  until: v.optional(text("until", `search: ${TIME_BOUNDS.until}`, "a time")),
  limit: v.optional(
    described(
      "limit",
      1,
      100,
      "search: at most this many rows (default 10); recent: the last N messages (default 10), before the newest offset ones; sessions: at most this many, the most recently active first (default: as many as fit max_chars).",
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
  // add_messages takes no offset: its cut answer holds the first ids and names no next_offset.
  max_chars: budget(
    "over it, the answer holds the first ids with truncated=true, and every message is stored all the same",
  ),
});

export const SessionContextArgs = v.strictObject({
  session: SessionId,
  input: v.optional(text("input", "The user's next input.")),
  offset: offsetOf(
    "Leave out this many messages from the end (the next_offset of a cut answer): the page before them, without the system section.",
  ),
  max_chars: maxChars,
});

const upTo = `, at most ${MAX_TEXT_BYTES / 1024} KiB`;

export const ErrorMemoryArgs = v.strictObject({
  mode: choice(
    "mode",
    ["lookup", "record"],
    "lookup: find fixes for an error (restarts their TTL); record: store an error and its fix.",
  ),
  error: v.optional(v.pipe(errorText("error"), v.description(`lookup and record: the error text${upTo}.`))),
  tool: v.optional(
    v.pipe(
      toolText,
      v.description(
        `lookup: only this tool (optional); record: the tool that failed. A name of at most ${MAX_TOOL_CHARS} characters on one line.`,
      ),
    ),
  ),
  fix: v.optional(v.pipe(errorText("fix"), v.description(`record: what fixed it${upTo}.`))),
  cause: v.optional(v.pipe(errorText("cause"), v.description(`record: why it happened${upTo}.`))),
  outcome: v.optional(
    choice("outcome", ["resolved", "failed", "abandoned"], "record: resolved (default), failed or abandoned."),
  ),
  keywords: v.optional(
    v.pipe(
      Keywords,
      v.description(
        `record: words to find it by (at most ${MAX_KEYWORDS}, each at most ${MAX_KEYWORD_CHARS} characters).`,
      ),
    ),
  ),
  limit: v.optional(described("limit", 1, 20, "lookup: at most this many records (default 5).")),
  offset: offsetOf("lookup: skip this many records (the next_offset of a cut answer)."),
  max_chars: maxChars,
});

export const SummaryArgs = v.strictObject({
  session: SessionId,
  offset: offsetOf(
    "Skip this many summary entries (the next_offset of a cut answer); each key decision, each past discussion and the current discussion is one.",
  ),
  max_chars: maxChars,
});

export type ChatHistory = v.InferOutput<typeof ChatHistoryArgs>;
export type AddMessages = v.InferOutput<typeof AddMessagesArgs>;
export type SessionContext = v.InferOutput<typeof SessionContextArgs>;
export type ErrorMemory = v.InferOutput<typeof ErrorMemoryArgs>;
export type SummaryRequest = v.InferOutput<typeof SummaryArgs>;

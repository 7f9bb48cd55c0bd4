// valibot schemas of the MCP tools' structured output (their outputSchema). Objects stay open to new fields;
// every answer may carry truncated and next_offset once its max_chars budget cut it.
import * as v from "valibot";

const count = v.pipe(v.number(), v.integer(), v.minValue(0));
const text = v.string();
const texts = v.array(text);
const role = v.picklist(["user", "assistant"]);

const paging = {
  truncated: v.optional(v.pipe(v.boolean(), v.description("The answer was cut to fit max_chars."))),
  next_offset: v.optional(v.pipe(count, v.description("Pass as offset for the rest of the list."))),
};

const Message = v.object({
  id: text,
  session: text,
  role,
  content: text,
  sendAt: text,
  sender: v.optional(text),
  tier: v.picklist(["recent", "archive"]),
});

const SearchRow = v.object({
  id: text,
  session: text,
  time: text,
  role,
  snippet: v.pipe(text, v.description("At most 200 characters; the full text comes from mode=get or mode=around.")),
  score: v.number(),
});

const Session = v.object({
  id: text,
  messages: count,
  lastActivity: v.nullable(text),
  hasSummary: v.boolean(),
  source: v.optional(text),
  title: v.optional(text),
  project: v.optional(text),
  parent: v.optional(text),
});

export const ChatHistoryOutput = v.object({
  mode: v.picklist(["search", "recent", "around", "get", "sessions"]),
  query: v.optional(
    v.pipe(text, v.description("search: the query, cut to 200 characters when longer (it would take the rows' room).")),
  ),
  match: v.optional(v.picklist(["keyword", "semantic", "hybrid"])),
  rows: v.optional(v.pipe(v.array(SearchRow), v.description("search: compact rows."))),
  notIndexed: v.optional(count),
  notes: v.optional(texts),
  emptyReason: v.optional(
    v.pipe(
      text,
      v.description(
        "Why the list is empty: for search, no match or an offset past the rows; for every mode, an offset past the end of its list (absent otherwise).",
      ),
    ),
  ),
  session: v.optional(text),
  anchor: v.optional(text),
  messages: v.optional(v.pipe(v.array(Message), v.description("recent, around, get: full messages."))),
  missing: v.optional(v.pipe(texts, v.description("get: ids not found."))),
  total: v.optional(count),
  sessions: v.optional(v.array(Session)),
  ...paging,
});

export const AddMessagesOutput = v.object({
  session: text,
  ids: v.pipe(
    texts,
    v.description('One stored id per message, in the order given; "" for a message whose idempotencyKey was removed.'),
  ),
  duplicates: v.pipe(count, v.description("Messages whose idempotencyKey the session already held.")),
  removed: v.optional(
    v.pipe(
      count,
      v.description("Messages not stored: their idempotencyKey belonged to a removed message (absent: none)."),
    ),
  ),
  compactionNote: v.optional(
    v.pipe(text, v.description("history.json held no user+assistant pair boundary and was cut between two messages.")),
  ),
  // add_messages takes no offset: a cut answer names no next_offset.
  truncated: v.optional(
    v.pipe(
      v.boolean(),
      v.description("ids was cut to fit max_chars: it holds the first ids, and every message is stored all the same."),
    ),
  ),
});

export const SessionContextOutput = v.object({
  session: text,
  messages: v.array(
    v.object({
      role,
      content: text,
      sendAt: v.optional(text),
      sender: v.optional(text),
      id: v.optional(text),
      kind: v.picklist(["history", "summary", "input"]),
    }),
  ),
  system: text,
  newSession: v.optional(
    v.pipe(v.literal(true), v.description("No such session yet: it starts with the first add_messages.")),
  ),
  summaryFilter: v.optional(v.unknown()),
  emptyReason: v.optional(v.pipe(text, v.description("An offset past the end of the context's messages says so."))),
  summaryProblem: v.optional(
    v.pipe(
      text,
      v.description(
        "Why the session's summary could not be read: it is left out until the next summary run rebuilds it.",
      ),
    ),
  ),
  ...paging,
});

export const ErrorMemoryOutput = v.object({
  mode: v.picklist(["lookup", "record"]),
  hits: v.optional(
    v.array(
      v.object({
        id: text,
        tool: text,
        error: text,
        fix: text,
        cause: v.nullable(text),
        outcome: text,
        hits: count,
        score: v.number(),
      }),
    ),
  ),
  notes: v.optional(texts),
  emptyReason: v.optional(v.pipe(text, v.description("lookup: an offset past the records found says so."))),
  id: v.optional(text),
  merged: v.optional(v.boolean()),
  outcome: v.optional(text),
  occurrences: v.optional(count),
  redacted: v.optional(texts),
  ...paging,
});

export const SummaryOutput = v.object({
  session: text,
  state: text,
  summary: v.pipe(v.unknown(), v.description("The summary document, or null when the session has none.")),
  problem: v.optional(v.pipe(text, v.description("Why summary.json could not be read (state corrupt)."))),
  cursor: v.nullable(text),
  cursorProblem: v.optional(v.pipe(text, v.description("Why the summary cursor could not be read."))),
  due: v.boolean(),
  emptyReason: v.optional(v.pipe(text, v.description("An offset past the end of the summary's entries says so."))),
  ...paging,
});

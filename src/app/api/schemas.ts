// valibot schemas of every MemoryApi input: the local implementation, the HTTP routes and the MCP tools
// validate with these, and the JSON Schema / OpenAPI documents are generated from them.
import * as v from "valibot";
import { namedError } from "../../shared/errors.ts";
import { MAX_QUERY_CHARS } from "../search-option-error.ts";
import {
  errorText,
  MAX_KEYWORD_CHARS,
  MAX_KEYWORDS,
  MAX_LIST_LIMIT,
  MAX_SEARCH_OFFSET,
} from "../../memory/error-memory/error-input.ts";
import { describeIssueFacts, issueFacts, type IssueFact, type IssueTextOptions } from "../../shared/schema-issues.ts";

export const LIMITS = {
  searchLimit: 1000,
  /** history-view.ts MAX_LAST, as `history --last N` takes it (with a filter, the newest N of those that pass). */
  historyLast: 1_000_000,
  around: 50,
  getIds: 100,
  errorLimit: 100,
  /** errors list has no page: as many as the CLI's `errors list --limit N` (it suggests --limit <total>). */
  errorList: MAX_LIST_LIMIT,
  batch: 5000,
} as const;

/** A whole number in [min, max], refused with one sentence naming the field and the range. */
export const whole = (what: string, min: number, max: number) => {
  const message = `${what} must be a whole number from ${min} to ${max}`;
  return v.pipe(v.number(message), v.integer(message), v.minValue(min, message), v.maxValue(max, message));
};

export const SessionId = v.pipe(
  v.string("session must be a session id"),
  v.regex(
    /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/,
    'session must be 1-128 characters of A-Z a-z 0-9 . _ - , not starting with "."',
  ),
  v.description("Session id: 1-128 of A-Z a-z 0-9 . _ -, not starting with a dot."),
);

export const MessageId = v.pipe(
  v.string("id must be text"),
  v.minLength(1, "id is empty"),
  v.maxLength(128, "id is too long"),
  v.description("A message id."),
);
export const ErrorId = v.pipe(
  v.string("id must be text"),
  v.minLength(1, "id is empty"),
  v.maxLength(128, "id is too long"),
  v.description("An error record id or a unique prefix of one."),
);

const Text = (what: string) =>
  v.pipe(
    v.string(`${what} must be text`),
    v.check((s) => s.trim() !== "", `${what} is empty`),
  );

export const MessageInput = v.strictObject(
  {
    role: v.pipe(
      v.picklist(["user", "assistant"], "role must be user or assistant"),
      v.description("user or assistant"),
    ),
    content: v.pipe(
      Text("content"),
      v.description("The message text, stored as given: at most limits.max_message_bytes of UTF-8 (1 MiB by default)."),
    ),
    sendAt: v.optional(
      v.pipe(
        v.union([v.string(), v.number()], "sendAt must be a time string or a number"),
        // JSON numbers past 2^53 lose digits (nanoseconds are 19): such a number is refused, never rounded.
        v.check(
          (t) => typeof t === "string" || Number.isSafeInteger(t) || (Number.isFinite(t) && !Number.isInteger(t)),
          "sendAt as a number must be unix seconds (a fraction allowed), ms or us: a number past 2^53 (9007199254740991), such as nanoseconds, has lost digits in JSON; send it as a string",
        ),
        v.description(
          "When it was sent: RFC 3339, or unix seconds (a fraction allowed: 1765000000.5), ms, us or ns (nanoseconds as a string: a JSON number loses digits). Default: now.",
        ),
      ),
    ),
    sender: v.optional(
      v.pipe(
        v.string("sender must be text"),
        v.maxLength(256, "sender must be at most 256 characters"),
        v.description("Who sent it."),
      ),
    ),
    idempotencyKey: v.optional(
      v.pipe(
        v.string("idempotencyKey must be text"),
        v.minLength(1, "idempotencyKey is empty"),
        v.maxLength(256, "idempotencyKey must be at most 256 characters"),
        v.description(
          "A key unique per message within the session: a retried add with the same key stores nothing twice.",
        ),
      ),
    ),
  },
  "must be an object with role and content",
);

export const AddInput = v.strictObject({
  session: SessionId,
  messages: v.pipe(
    v.array(MessageInput, "messages must be a list of messages"),
    v.minLength(1, "messages is empty"),
    v.maxLength(LIMITS.batch, `messages must hold at most ${LIMITS.batch} messages`),
  ),
});

export const SessionsInput = v.strictObject({
  sort: v.optional(
    v.pipe(v.picklist(["recent", "name"], "sort must be recent or name"), v.description("recent (default) or name")),
  ),
});

export const SessionInput = v.strictObject({ session: SessionId });

export const HistoryInput = v.pipe(
  v.strictObject({
    session: SessionId,
    all: v.optional(
      v.pipe(
        v.boolean("all must be true or false"),
        v.description("Every message ever written instead of the window."),
      ),
    ),
    last: v.optional(
      v.pipe(
        whole("last", 1, LIMITS.historyLast),
        v.description("The window size (default limits.max_history_messages)."),
      ),
    ),
  }),
  // As the CLI's --all and --last: one or the other, never one silently ignored.
  v.check((o) => !(o.all === true && o.last !== undefined), "give all or last, not both"),
);

/** How since and until are read, on every surface (the CLI's --since and --until). */
export const TIME_BOUNDS = {
  since:
    "Only messages at or after this time: RFC 3339, a local date or time (2026-05-01, 2026-05-01 09:30), today, yesterday, or a relative form counted back from now (30m, 12h, 3d, 2w, 1y).",
  until:
    "Only messages up to the end of this time, in the same forms: to its precision (09:30:15 keeps that second); a date alone (or today, yesterday) means the end of that day.",
} as const;

const Time = (what: keyof typeof TIME_BOUNDS) =>
  v.pipe(v.string(`${what} must be a time`), v.description(TIME_BOUNDS[what]));

export const SearchInput = v.strictObject({
  query: v.pipe(
    Text("query"),
    v.maxLength(MAX_QUERY_CHARS, (i) => `query must be at most ${MAX_QUERY_CHARS} characters (it has ${i.received})`),
    v.description("Plain text; never query syntax."),
  ),
  session: v.optional(SessionId),
  match: v.optional(
    v.pipe(
      v.picklist(["keyword", "semantic", "hybrid"], "match must be keyword, semantic or hybrid"),
      v.description("keyword (default), semantic or hybrid"),
    ),
  ),
  range: v.optional(
    v.pipe(
      v.picklist(["1d", "7d", "30d", "1y", "all"], "range must be 1d, 7d, 30d, 1y or all"),
      v.description("How far back (default all)."),
    ),
  ),
  since: v.optional(Time("since")),
  until: v.optional(Time("until")),
  limit: v.optional(
    v.pipe(whole("limit", 1, LIMITS.searchLimit), v.description("At most this many hits (default 10).")),
  ),
});

export const MessagesInput = v.strictObject({
  ids: v.pipe(
    v.array(MessageId, "ids must be a list of message ids"),
    v.minLength(1, "ids is empty"),
    v.maxLength(LIMITS.getIds, `ids must hold at most ${LIMITS.getIds} ids`),
  ),
});

export const AroundInput = v.strictObject({
  id: MessageId,
  before: v.optional(v.pipe(whole("before", 0, LIMITS.around), v.description("Messages before (default 5)."))),
  after: v.optional(v.pipe(whole("after", 0, LIMITS.around), v.description("Messages after (default 5)."))),
});

export const RmMessageInput = v.strictObject({
  id: MessageId,
  dropSummary: v.optional(
    v.pipe(v.boolean("dropSummary must be true or false"), v.description("Also remove summary.json and its cursor.")),
  ),
});

export const ContextInput = v.strictObject({
  session: SessionId,
  input: v.optional(v.pipe(v.string("input must be text"), v.description("The user's next input, appended last."))),
});

export const ResetInput = v.strictObject({
  session: SessionId,
  all: v.optional(v.pipe(v.boolean("all must be true or false"), v.description("Also delete the summary."))),
});

const Outcome = v.picklist(["resolved", "failed", "abandoned"], "outcome must be resolved, failed or abandoned");
const Tool = v.pipe(
  v.string("tool must be text"),
  v.check((s) => s.trim() !== "", "tool is empty"),
  v.maxLength(128, "tool must be at most 128 characters"),
  // Stored as given, half an emoji makes the record's JSON one that strict parsers (jq) refuse.
  v.check((s) => s.isWellFormed(), "tool is not valid Unicode (unpaired surrogate)"),
);

/** Words to find an error record by: at most MAX_KEYWORDS, each at most MAX_KEYWORD_CHARS characters. */
export const Keywords = v.pipe(
  v.array(
    v.pipe(
      v.string("keywords must be words"),
      v.maxLength(MAX_KEYWORD_CHARS, `each keyword must be at most ${MAX_KEYWORD_CHARS} characters`),
      v.check((s) => s.isWellFormed(), "each keyword must be valid Unicode (no unpaired surrogate)"),
    ),
    "keywords must be a list of words",
  ),
  v.maxLength(MAX_KEYWORDS, `keywords must hold at most ${MAX_KEYWORDS} words`),
);

export const RecordErrorInput = v.strictObject({
  tool: v.pipe(Tool, v.description("The tool or command that failed.")),
  error: v.pipe(Text("error"), errorText("error"), v.description("The error text (at most 64 KiB).")),
  fix: v.pipe(Text("fix"), errorText("fix"), v.description("What fixed it, or was tried (at most 64 KiB).")),
  cause: v.optional(v.nullable(v.pipe(errorText("cause"), v.description("Why it happened (at most 64 KiB).")))),
  outcome: v.optional(v.pipe(Outcome, v.description("resolved (default), failed or abandoned"))),
  keywords: v.optional(Keywords),
});

export const SearchErrorsInput = v.strictObject({
  query: v.pipe(Text("query"), errorText("query"), v.description("The error text to look up (at most 64 KiB).")),
  tool: v.optional(v.pipe(Tool, v.description("Only this tool (others too with otherTools)."))),
  limit: v.optional(whole("limit", 1, LIMITS.errorLimit)),
  offset: v.optional(
    v.pipe(
      whole("offset", 0, MAX_SEARCH_OFFSET),
      v.description("Skip this many of the ranked records (default 0): only the records returned are hits."),
    ),
  ),
  otherTools: v.optional(v.boolean("otherTools must be true or false")),
  hit: v.optional(
    v.pipe(
      v.boolean("hit must be true or false"),
      v.description("false: a look that is no hit, as list and show (no TTL restarted, no hit counted)."),
    ),
  ),
});

export const HitErrorsInput = v.strictObject({
  ids: v.pipe(
    v.array(
      v.pipe(
        v.string("ids must be a list of error record ids"),
        v.minLength(1, "an id is empty"),
        v.maxLength(128, "an id is too long"),
      ),
      "ids must be a list of error record ids",
    ),
    v.minLength(1, "ids is empty"),
    v.maxLength(LIMITS.errorLimit, `ids must hold at most ${LIMITS.errorLimit} ids`),
    v.description(
      "Full ids of the records shown (as a lookup with hit: false returned them); an id of no live record is skipped.",
    ),
  ),
});

export const ListErrorsInput = v.strictObject({
  tool: v.optional(Tool),
  outcome: v.optional(Outcome),
  limit: v.optional(whole("limit", 1, LIMITS.errorList)),
});

export const ErrorIdInput = v.strictObject({ id: ErrorId });
export const EmptyInput = v.strictObject({});

export type AnySchema = v.GenericSchema;

/** How the API's input issues read: each with its field ("missing", "unknown field", or the schema's sentence). */
const ISSUE_TEXT: IssueTextOptions = {
  unknown: "unknown field",
  missing: "missing",
  omitNamedPath: true,
  // As the checks after the schema name them (size, time, a reused key): "message 2", numbered from 1.
  items: { messages: "message" },
};

/** Every issue as a fact with its dotted path. */
export function inputIssues(issues: readonly v.BaseIssue<unknown>[]): IssueFact[] {
  return issueFacts(issues, ISSUE_TEXT);
}

/** Input to a MemoryApi call that its schema refuses: the call and every problem, each with its field. */
export const ApiInputError = namedError<{ what: string; issues: IssueFact[] }>(
  "ApiInputError",
  "input",
  (d) => `${d.what}: ${describeIssueFacts(d.issues)}`,
);
export type ApiInputError = InstanceType<typeof ApiInputError>;

/** Validate `raw` or throw an ApiInputError naming the field. */
export function parseInput<S extends AnySchema>(schema: S, raw: unknown, what: string): v.InferOutput<S> {
  const r = v.safeParse(schema, raw ?? {});
  if (!r.success) throw new ApiInputError({ what, issues: inputIssues(r.issues) });
  return r.output;
}

export type Infer<S extends AnySchema> = v.InferInput<S>;

/** Validate without throwing: the value, or every problem with its field. */
export function checkInput<S extends AnySchema>(
  schema: S,
  raw: unknown,
): { ok: true; value: v.InferOutput<S> } | { ok: false; issues: IssueFact[] } {
  const r = v.safeParse(schema, raw ?? {});
  return r.success ? { ok: true, value: r.output } : { ok: false, issues: inputIssues(r.issues) };
}

// The public input types of memory-api.ts are written out; these lines fail to compile when they and the
// schemas disagree.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const agree: [
  Same<v.InferInput<typeof MessageInput>, import("./memory-api.ts").MessageInput>,
  Same<v.InferInput<typeof SearchInput>, import("./memory-api.ts").SearchInput>,
  Same<v.InferInput<typeof RecordErrorInput>, import("./memory-api.ts").RecordErrorInput>,
  Same<v.InferInput<typeof SearchErrorsInput>, import("./memory-api.ts").SearchErrorsInput>,
  Same<v.InferInput<typeof ListErrorsInput>, import("./memory-api.ts").ListErrorsInput>,
] = [true, true, true, true, true];
void agree;

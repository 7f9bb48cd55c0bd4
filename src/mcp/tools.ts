// The MCP tools: chat_history, add_messages, session_context, error_memory and summary, each a projection
// of MemoryApi calls with a max_chars budget. Search gives compact rows; full text comes from get and around.
import { checkInput, LIMITS, type AnySchema } from "../app/api/schemas.ts";
import * as T from "../app/api/tool-schemas.ts";
import * as O from "../app/api/tool-output-schemas.ts";
import { BUDGET } from "../app/api/tool-schemas.ts";
import type { MemoryApi } from "../app/api/memory-api.ts";
import type { ErrorSearchResultJson, SearchHitJson } from "../app/api/json-types.ts";
import { fitBudget, fitPages, type Budgeted, type Pages } from "./budget.ts";
import { contextPages, counted, summaryPages } from "./pages.ts";
import { normalizeArgs } from "./client-args.ts";
import { namedError } from "../shared/errors.ts";
import { describeIssueFacts, type IssueFact } from "../shared/schema-issues.ts";

export const SNIPPET_CHARS = 200;

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface ToolDef {
  name: string;
  title: string;
  description: string;
  schema: AnySchema;
  /** The structuredContent of a result that is not isError. */
  output: AnySchema;
  annotations: ToolAnnotations;
  run(api: MemoryApi, args: any): Promise<Budgeted>;
}

/** Every tool stays on this machine and deletes nothing; it either only reads or it writes. */
/** The fewest hits a search page is taken from (pageDepth). */
const PAGE_DEPTH = 50;

const READS: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
const WRITES: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};

/** A bad argument: answered as an isError result with one sentence naming the field; nothing changed. */
export const ToolArgumentError = namedError<
  | { problem: "needed"; tool: string; field: string; mode: string }
  | { problem: "invalid"; tool: string; issues: IssueFact[] }
>("ToolArgumentError", "input", (d) =>
  d.problem === "needed"
    ? `${d.tool}: ${d.field} is needed for mode ${d.mode}.`
    : `${d.tool}: ${describeIssueFacts(d.issues)}.`,
);
export type ToolArgumentError = InstanceType<typeof ToolArgumentError>;

/** The check that a field a mode of `tool` needs is given. */
const needIn =
  (tool: string) =>
  <T>(value: T | undefined, field: string, mode: string): T => {
    if (
      value === undefined ||
      (typeof value === "string" && value.trim() === "") ||
      (Array.isArray(value) && value.length === 0)
    ) {
      throw new ToolArgumentError({ problem: "needed", tool, field, mode });
    }
    return value;
  };

const clip = (text: string, max: number) => {
  const t = text.replace(/\s+/g, " ").trim();
  if (t.length <= max) return t;
  // Never half an emoji: a cut inside a surrogate pair moves back one.
  const end = /[\uD800-\uDBFF]/.test(t[max - 2]!) ? max - 2 : max - 1;
  return t.slice(0, end) + "…";
};

/** The query as a search answer names it: a long one (a pasted log) cut, since it would take the budget of the rows. */
const echoed = (query: string) => (query.length > SNIPPET_CHARS ? clip(query, SNIPPET_CHARS) : query);

function compactRow(h: SearchHitJson) {
  return {
    id: h.id,
    session: h.session,
    time: h.sendAt,
    role: h.role,
    snippet: clip(h.snippet || h.content, SNIPPET_CHARS),
    score: Math.round(h.score * 1000) / 1000,
  };
}

export const TOOLS: readonly ToolDef[] = [
  {
    name: "chat_history",
    title: "Chat history",
    description:
      "Search and read past conversations stored in memvoy. mode=search finds messages (keyword, semantic or hybrid; one session or all; range or since/until) " +
      "and returns compact rows (id, session, time, role, snippet, score). To read full text, call mode=get with the row ids, or mode=around with one id " +
      "for the messages before and after it (cut by max_chars, that message and the ones nearest it come first). mode=recent gives the last N messages of a session (cut by max_chars, the newest are kept and next_offset pages back); mode=sessions lists sessions (the most recently active first, limit of them) with message count and last activity. " +
      `Answers stay within max_chars (default ${BUDGET.default}); a cut answer has truncated=true and next_offset to pass as offset.`,
    schema: T.ChatHistoryArgs,
    output: O.ChatHistoryOutput,
    annotations: READS,
    async run(api, a: T.ChatHistory) {
      const need = needIn("chat_history");
      const budget = a.max_chars ?? BUDGET.default;
      const offset = a.offset ?? 0;
      switch (a.mode) {
        case "search": {
          const query = need(a.query, "query", "search");
          const limit = a.limit ?? 10;
          const r = await api.search({
            query,
            session: a.session,
            match: a.match ?? "hybrid",
            range: a.range,
            since: a.since,
            until: a.until,
            limit: pageDepth(offset, limit),
          });
          const out: Record<string, unknown> = {
            mode: "search",
            query: echoed(query),
            match: a.match ?? "hybrid",
            rows: r.hits.slice(offset, offset + limit).map(compactRow),
          };
          if (r.notIndexed > 0) out.notIndexed = r.notIndexed;
          if (r.notes.length > 0) out.notes = r.notes;
          if (r.emptyReason !== undefined) out.emptyReason = r.emptyReason;
          else if (offset > 0 && r.hits.length <= offset)
            out.emptyReason = pastTheEnd(offset, r.hits.length, "search", ["row", "rows"], LIMITS.searchLimit);
          return fitBudget(out, budget, "rows", offset);
        }
        case "recent": {
          const session = need(a.session, "session", "recent");
          // The page is the `limit` messages before the newest `offset`, as search's offset and limit page.
          const h = await api.history(session, { last: offset + (a.limit ?? 10) });
          return fitPages(recentPages(session, h.messages, offset), budget);
        }
        case "around": {
          const id = need(a.id, "id", "around");
          const r = await api.around(id, { before: a.before ?? 5, after: a.after ?? 5 });
          return fitPages(aroundPages(r, offset), budget);
        }
        case "get": {
          const ids = need(a.ids, "ids", "get");
          const found = await api.messages(ids);
          const missing = ids.filter((id) => !found.some((m) => m.id === id));
          return fitPages(getPages(found, missing, offset), budget);
        }
        case "sessions": {
          const list = await api.sessions();
          const end = a.limit === undefined ? undefined : offset + a.limit;
          const out = { mode: "sessions", total: list.length, sessions: list.slice(offset, end) };
          return fitBudget(pastEnd(out, offset, list.length, "session"), budget, "sessions", offset);
        }
      }
    },
  },
  {
    name: "add_messages",
    title: "Add messages",
    description:
      "Append messages (role user or assistant, content, optional sendAt, sender and idempotencyKey) to a session, in order. Returns the new message ids once " +
      "they are stored (over max_chars, the first ids that fit, with truncated=true: every message is stored all the same; raise max_chars for every id). " +
      "Give each message an idempotencyKey to retry safely: a message whose key the session already holds is not stored twice. " +
      "An error names a message by its position counted from 1 (message 1 is the first).",
    schema: T.AddMessagesArgs,
    output: O.AddMessagesOutput,
    annotations: WRITES,
    async run(api, a: T.AddMessages) {
      const r = await api.add(a.session, a.messages);
      // This tool takes no offset: a cut answer names no next_offset, which an agent would pass back in vain.
      const { next_offset: _, ...value } = fitBudget({ ...r }, a.max_chars ?? BUDGET.default, "ids").value;
      return { value, text: JSON.stringify(value) };
    },
  },
  {
    name: "session_context",
    title: "Session context",
    description:
      "The context for a session's next turn: its last N messages in full, then one user message holding the Prior summary block (when the session has a " +
      "rolling summary), then the input if given; plus the system prompt section that says how to use the summary. Over max_chars, the oldest " +
      "messages are left out first (the input and the summary are the last to go), with truncated=true and next_offset: pass it as offset for the older ones.",
    schema: T.SessionContextArgs,
    output: O.SessionContextOutput,
    annotations: READS,
    async run(api, a: T.SessionContext) {
      const c = await api.context(a.session, a.input);
      return fitPages(contextPages(c, a.offset ?? 0), a.max_chars ?? BUDGET.default);
    },
  },
  {
    name: "error_memory",
    title: "Error memory",
    description:
      "Tool errors and the fixes that worked, across sessions. mode=lookup with the error text (and optionally the tool) returns matching records with fix, " +
      "cause, outcome and hits; every record shown (and no other) has its expiry restarted (error_memory.ttl_days, 90 days by default). mode=record stores tool, error, fix, cause, outcome and keywords " +
      "(secrets are redacted; the same error of the same tool is merged). Over max_chars, a lookup keeps the records that fit (a record alone over it " +
      "has its long texts cut alike), with truncated=true and next_offset to pass as offset.",
    schema: T.ErrorMemoryArgs,
    output: O.ErrorMemoryOutput,
    // lookup restarts the TTL of what it finds, record writes: neither is read-only.
    annotations: WRITES,
    async run(api, a: T.ErrorMemory) {
      const need = needIn("error_memory");
      const budget = a.max_chars ?? BUDGET.default;
      if (a.mode === "lookup") {
        const error = need(a.error, "error", "lookup");
        const offset = a.offset ?? 0;
        // Only the records shown are hits (their TTL restarts): the page is asked for, not the records before it,
        // and looked at without a hit, since max_chars may hold fewer records than were found; then the ones that
        // fit, with the hit counted, are stamped by id.
        const limit = Math.min(a.limit ?? 5, LIMITS.errorLimit - offset);
        const answer = (r: LookupPage) => lookupAnswer(r, offset, budget);
        if (limit <= 0) return answer({ hits: [], notes: [] });
        const seen = await api.searchErrors({ query: error, tool: a.tool || undefined, limit, offset, hit: false });
        if (seen.hits.length === 0) return answer(seen);
        // Fitted with the counts the records will show, one more each.
        const asHits = seen.hits.map((h) => ({ ...h, hits: h.hits + 1 }));
        const shown = (answer({ ...seen, hits: asHits }).value.hits as unknown[]).length;
        if (shown === 0) return answer(seen);
        const stamped = new Map(
          (await api.hitErrors(seen.hits.slice(0, shown).map((h) => h.id))).records.map((r) => [r.id, r]),
        );
        // A record removed or expired since the look is shown as it was seen. The rest, still past the budget,
        // makes the answer say truncated and give next_offset.
        return answer({
          ...seen,
          hits: seen.hits.map((h, i) => (i < shown && stamped.has(h.id) ? { ...h, hits: stamped.get(h.id)!.hits } : h)),
        });
      }
      const r = await api.recordError({
        tool: need(a.tool, "tool", "record"),
        error: need(a.error, "error", "record"),
        fix: need(a.fix, "fix", "record"),
        cause: a.cause,
        outcome: a.outcome,
        keywords: a.keywords,
      });
      return fitBudget(
        {
          mode: "record",
          id: r.record.id,
          merged: r.merged,
          outcome: r.record.outcome,
          occurrences: r.record.occurrences,
          redacted: r.redacted,
          notes: r.notes,
        },
        budget,
      );
    },
  },
  {
    name: "summary",
    title: "Session summary",
    description:
      "A session's rolling summary (key decisions, past discussions, current discussion), with its cursor and whether a new run is due. " +
      "Over max_chars, it holds the entries that fit, with truncated=true and next_offset to pass as offset for the rest.",
    schema: T.SummaryArgs,
    output: O.SummaryOutput,
    annotations: READS,
    async run(api, a: T.SummaryRequest) {
      return fitPages(summaryPages(await api.summary(a.session), a.offset ?? 0), a.max_chars ?? BUDGET.default);
    },
  },
];

type LookupPage = Pick<ErrorSearchResultJson, "hits" | "notes">;

/** A lookup's page from `offset` on, within `budget`. */
function lookupAnswer(r: LookupPage, offset: number, budget: number): Budgeted {
  const hits = r.hits.map((h) => ({
    id: h.id,
    tool: h.tool,
    error: h.error,
    fix: h.fix,
    cause: h.cause,
    outcome: h.outcome,
    hits: h.hits,
    score: Math.round(h.score * 1000) / 1000,
  }));
  const out: Record<string, unknown> = { mode: "lookup", hits };
  if (r.notes.length > 0) out.notes = r.notes;
  if (offset > 0 && hits.length === 0)
    out.emptyReason =
      offset >= LIMITS.errorLimit
        ? `offset ${offset} is past the end: a lookup gives at most ${LIMITS.errorLimit} records`
        : `offset ${offset} is past the end: the lookup found no more than ${counted(offset, "record")}`;
  return fitBudget(out, budget, "hits", offset);
}

/** Why a page from `offset` on is empty when the `what` found `found` items (`noun`: one, many), at most `most`. */
/**
 * How many hits a search page is taken from. A search's best hits may change with its limit (its candidate lists
 * grow with it), so pages taken from searches of different limits could repeat or skip hits: every page of one
 * query, a cut answer's continuation included, comes from one ranking as long as it ends within the first
 * max(PAGE_DEPTH, 2 * limit) hits.
 */
export function pageDepth(offset: number, limit: number): number {
  return Math.min(LIMITS.searchLimit, Math.max(PAGE_DEPTH, 2 * limit, offset + limit));
}

function pastTheEnd(offset: number, found: number, what: string, noun: [string, string], most: number): string {
  return offset >= most
    ? `offset ${offset} is past the end: a ${what} gives at most ${most} ${noun[1]}`
    : `offset ${offset} is past the end: the ${what} found ${found} ${noun[found === 1 ? 0 : 1]}`;
}

/**
 * mode=recent pages from the newest message back, as session_context does: a cut answer keeps the newest that fit (in
 * order), and `offset` leaves out that many from the end. `messages` are the session's last offset + limit, so fewer
 * than `offset` are all the session holds.
 */
function recentPages(session: string, messages: readonly unknown[], offset: number): Pages {
  const end = Math.max(0, messages.length - offset);
  return {
    offset,
    total: end,
    page: (n) =>
      pastEnd({ mode: "recent", session, messages: messages.slice(end - n, end) }, offset, messages.length, "message"),
  };
}

/**
 * mode=around pages outward from the anchor: the anchor, then the messages next to it, nearer first (the one before
 * first on a tie), so that a cut answer holds the message asked about and what is closest to it, in time order; the
 * next pages go on outward. `offset` counts along that order.
 */
function aroundPages(
  r: { anchor: string; session: string; messages: readonly { id: string }[] },
  offset: number,
): Pages {
  const at = Math.max(
    0,
    r.messages.findIndex((m) => m.id === r.anchor),
  );
  const outward = r.messages.map((_, i) => i).sort((x, y) => Math.abs(x - at) - Math.abs(y - at) || x - y);
  const left = outward.slice(offset);
  return {
    offset,
    total: left.length,
    page: (n) => {
      const shown = left.slice(0, n).sort((x, y) => x - y);
      const out = { mode: "around", anchor: r.anchor, session: r.session, messages: shown.map((i) => r.messages[i]) };
      return pastEnd(out, offset, r.messages.length, "message");
    },
  };
}

/**
 * mode=get pages through one list: the messages found, then the ids not found (a hundred unknown ids alone can be
 * over the budget). `offset` counts along it.
 */
function getPages(found: readonly unknown[], missing: readonly string[], offset: number): Pages {
  const messages = found.slice(offset);
  const unknown = missing.slice(Math.max(0, offset - found.length));
  return {
    offset,
    total: messages.length + unknown.length,
    page: (n) => {
      const out: Record<string, unknown> = { mode: "get", messages: messages.slice(0, n) };
      const notFound = unknown.slice(0, Math.max(0, n - messages.length));
      if (notFound.length > 0) out.missing = notFound;
      const all = found.length + missing.length;
      if (offset > 0 && offset >= all)
        out.emptyReason = `offset ${offset} is past the end of the ${counted(found.length, "message")} found${
          missing.length > 0 ? ` and ${counted(missing.length, "id")} not found` : ""
        }`;
      return out;
    },
  };
}

/**
 * `value` saying why its list is empty when `offset` is past the end of the `count` items there are: without it, a
 * page there reads as an empty session (or no sessions at all).
 */
function pastEnd(value: Record<string, unknown>, offset: number, count: number, noun: string): Record<string, unknown> {
  if (offset === 0 || offset < count) return value;
  return { ...value, emptyReason: `offset ${offset} is past the end of the ${counted(count, noun)}` };
}

/** Check the arguments with the tool's valibot schema; a ToolArgumentError names the field. */
export function checkArgs(tool: ToolDef, raw: unknown): unknown {
  const r = checkInput(tool.schema, normalizeArgs(tool.schema, raw));
  if (!r.ok) throw new ToolArgumentError({ problem: "invalid", tool: tool.name, issues: r.issues });
  return r.value;
}

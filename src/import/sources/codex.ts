// OpenAI Codex CLI rollouts: $CODEX_HOME (default ~/.codex) sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl and
// archived_sessions/, also .jsonl.zst (the plain file wins when both exist). Lines are {timestamp, type, payload};
// the first rollouts (2025) are a header line, then bare items. The TypeScript CLI before them wrote one JSON
// document per session, sessions/rollout-<date>-<uuid>.json (codex-json.ts).
import { existsSync } from "node:fs";
import { basename, join } from "node:path";
import { importedSessionId, shortHash } from "../../shared/import-id.ts";
import { recordTime } from "../record-time.ts";
import type { FileRead, ImportedMessage, Problem, ReadContext, Source } from "../import-types.ts";
import { NotThisFormatError } from "../import-types.ts";
import { homeOf, listFiles, titleFrom } from "../source-files.ts";
import { isObject, jsonlLines, tryJson, zstLines } from "../read-lines.ts";
import { lineKey, parentLines } from "./codex-forks.ts";
import { readJsonRollout } from "./codex-json.ts";
import { cleanThreadName, indexedThreadName } from "./codex-names.ts";

const PREFIX = "codex";
const INJECTED =
  /^\s*<(environment_context|user_instructions|user_shell_command|turn_aborted|permissions instructions|INSTRUCTIONS)\b/;

export const codex: Source = {
  name: "codex",
  prefix: PREFIX,
  defaultPaths: (env) => {
    const home = env.CODEX_HOME || join(homeOf(env), ".codex");
    return [join(home, "sessions"), join(home, "archived_sessions")];
  },
  files: (path) =>
    listFiles(path, (name, full) => {
      if (!name.startsWith("rollout-")) return false;
      if (name.endsWith(".jsonl") || name.endsWith(".json")) return true;
      return name.endsWith(".jsonl.zst") && !existsSync(full.slice(0, -4));
    }),
  appendOnly: (file) => !file.endsWith(".zst") && !file.endsWith(".json"),
  read: (ctx) => (ctx.file.endsWith(".json") ? readJsonRollout(ctx, PREFIX, itemText) : readRollout(ctx)),
  // A thread renamed (or named by Codex) after its last turn changes only the home's session index.
  outdated: (file, state) => {
    if (typeof state.sessionId !== "string") return false;
    const name = indexedThreadName(file, state.sessionId);
    return name !== undefined && shortHash(name) !== state.indexedNameHash;
  },
};

async function readRollout(ctx: ReadContext): Promise<FileRead> {
  const skipped: Problem[] = [];
  let sessionId = typeof ctx.state.sessionId === "string" ? ctx.state.sessionId : undefined;
  let project = typeof ctx.state.project === "string" ? ctx.state.project : undefined;
  let parent = typeof ctx.state.parent === "string" ? ctx.state.parent : undefined;
  // The thread's name (Codex's generated title, or the person's /rename): the latest thread_name_updated wins.
  let named: string | undefined;
  // Once a rollout shows event_msg user/agent messages, those are the clean text and response_item messages are skipped.
  let events = ctx.state.events === true;
  let line = typeof ctx.state.line === "number" ? ctx.state.line : 1;
  // A pass that resumes mid-file sees only later turns: the first user line was offered before (state kept
  // before this flag existed: assume so).
  const titled = ctx.state.titled === true || (ctx.offset > 0 && ctx.state.titled === undefined);
  // The first rollouts (codex-rs, spring and summer 2025): a header line {id, timestamp, instructions, git}, then bare
  // response items and {"record_type":"state"} lines, none of them timed. The header's time, kept for later passes.
  let legacy = typeof ctx.state.legacyStart === "string" ? BigInt(ctx.state.legacyStart) : undefined;
  let offset = ctx.offset;
  const fromEvents: ImportedMessage[] = [];
  const fromItems: ImportedMessage[] = [];
  let records = 0;
  let lines = 0;
  // The last user and assistant message events (`form:text hash`): a twin in the other form is the same message.
  const last: Record<"user" | "assistant", string | undefined> = {
    user: typeof ctx.state.lastUser === "string" ? ctx.state.lastUser : undefined,
    assistant: typeof ctx.state.lastAssistant === "string" ? ctx.state.lastAssistant : undefined,
  };
  // Inside a turn, after its prompt: builds before the user message item recorded input typed while the turn ran
  // (steering) only as a response_item. One whose next line is not its event twin is such input.
  let inTurn = ctx.state.inTurn === true;
  let steer: (ImportedMessage & { start: number; line: number }) | undefined;
  let rolledBack = false;
  // A thread Codex runs for itself (a compaction, an approval review, memory consolidation): no conversation.
  let internal = ctx.state.internal === true;
  // A forked or spawned thread's first lines after its own session_meta are its parent's, copied: they are the parent's
  // messages (imported with its rollout), not this thread's.
  let copies: number[] | undefined;
  let copied = 0;
  // A .zst is read whole each time (never from an offset), decompressed as it is read.
  let incomplete: Error | undefined;
  const input = ctx.file.endsWith(".zst")
    ? zstLines(
        ctx.file,
        (cut) => {
          incomplete = cut;
        },
        ctx.onRead,
      )
    : jsonlLines(ctx.file, ctx.offset, line, false, ctx.onRead);
  for await (const l of input) {
    // The line's byte offset keys its message: stable for an append-only rollout and for its .zst.
    const key = String(l.start);
    offset = l.end;
    line = l.line + 1;
    if (l.text.trim() === "") continue;
    lines++;
    const r = tryJson(l.text);
    if (copies !== undefined) {
      if (isObject(r) && copies[copied] === lineKey(r)) {
        copied++;
        continue;
      }
      copies = undefined;
    }
    // Settled by the next message event (its twin, or not) or response item; other events (item_started, token
    // counts) can come between an item and its twin.
    const next =
      isObject(r) && isObject(r.payload) && (r.type === "event_msg" || r.type === "response_item")
        ? r.type === "event_msg"
          ? eventMessage(r.payload)
          : { role: undefined, said: "" }
        : undefined;
    if (steer && next) {
      if (next.role !== "user" || requestOf(next.said) !== steer.content) fromEvents.push(steer);
      steer = undefined;
    }
    if (isObject(r) && !isObject(r.payload)) {
      const begun = lines === 1 && ctx.offset === 0 ? legacyHeader(r) : undefined;
      if (begun !== undefined) {
        legacy = begun;
        records++;
        if (sessionId === undefined) sessionId = r.id as string;
        continue;
      }
      if (legacy !== undefined && (r.record_type === "state" || typeof r.type === "string")) {
        records++;
        if (r.type === "message" && (r.role === "user" || r.role === "assistant")) {
          if (project === undefined) project = contextCwd(r.content);
          const text = r.role === "user" ? requestOf(itemText(r.content)) : itemText(r.content);
          // No time of its own: the session's start plus a millisecond per line keeps the order, pass after pass.
          if (text !== "") fromItems.push({ key, role: r.role, content: text, sendAt: legacy + BigInt(l.line) * MS });
        }
        continue;
      }
    }
    if (!isObject(r) || typeof r.type !== "string" || !isObject(r.payload)) {
      skipped.push({ file: ctx.file, line: l.line, reason: r === undefined ? "not valid JSON" : "not a rollout line" });
      continue;
    }
    records++;
    const p = r.payload;
    if (r.type === "session_meta") {
      // A forked or spawned thread's rollout replays its parent's history, the parent's session_meta included: the
      // first one is the rollout's own.
      if (typeof p.id === "string" && sessionId === undefined) {
        sessionId = p.id;
        internal = codexOwnThread(p);
        const forkedFrom =
          typeof p.forked_from_id === "string" && p.forked_from_id !== "" ? p.forked_from_id : undefined;
        parent = spawnedBy(p) ?? forkedFrom;
        const from = forkedFrom ?? parent;
        if (ctx.offset === 0 && lines === 1 && from !== undefined) copies = await parentLines(ctx.file, from);
      }
      if (typeof p.cwd === "string" && project === undefined) project = p.cwd;
      continue;
    }
    if (r.type === "event_msg" && p.type === "thread_name_updated" && typeof p.thread_name === "string") {
      const name = cleanThreadName(p.thread_name);
      if (name !== "") named = name;
      continue;
    }
    // A thread rollback (the person backtracked to edit an earlier prompt) drops the newest user turns from the
    // thread's history: their messages are no longer part of the conversation.
    if (r.type === "event_msg" && p.type === "thread_rolled_back") {
      if (steer) fromEvents.push(steer);
      steer = undefined;
      const turns = typeof p.num_turns === "number" ? p.num_turns : 0;
      dropUserTurns(fromEvents, turns);
      dropUserTurns(fromItems, turns);
      last.user = undefined;
      last.assistant = undefined;
      inTurn = false;
      rolledBack = true;
      continue;
    }
    const at = () => (typeof r.timestamp === "string" ? recordTime(r.timestamp) : undefined);
    const event = r.type === "event_msg" ? eventMessage(p) : undefined;
    if (
      r.type === "event_msg" &&
      (p.type === "task_complete" || p.type === "turn_aborted" || p.type === "task_started")
    )
      inTurn = false;
    if (event) {
      events = true;
      if (event.role === "user") inTurn = true;
      const text = event.role === "user" ? requestOf(event.said) : event.said;
      // Some builds mark injected context on the event itself (kind environment_context / user_instructions).
      const injected =
        event.role === "user" && ((typeof p.kind === "string" && p.kind !== "plain") || INJECTED.test(text));
      if (text === "" || injected) continue;
      // Builds between the two forms write a message twice, as the item and as the older event, one after the other.
      const seen = `${event.form}:${blockHash(text)}`;
      const prev = last[event.role];
      last[event.role] = seen;
      if (prev !== undefined && prev !== seen && prev.slice(prev.indexOf(":")) === seen.slice(seen.indexOf(":"))) {
        last[event.role] = undefined;
        continue;
      }
      const sendAt = at();
      if (sendAt === undefined) {
        skipped.push({ file: ctx.file, line: l.line, reason: "line has no valid timestamp" });
        continue;
      }
      fromEvents.push({ key, role: event.role, content: text, sendAt });
    } else if (r.type === "response_item" && p.type === "message" && (p.role === "user" || p.role === "assistant")) {
      const text = p.role === "user" ? requestOf(itemText(p.content)) : itemText(p.content);
      const sendAt = text === "" ? undefined : at();
      if (sendAt === undefined) continue;
      fromItems.push({ key, role: p.role === "user" ? "user" : "assistant", content: text, sendAt });
      if (p.role === "user" && inTurn && !STEER_NOT.test(text))
        steer = { ...fromItems.at(-1)!, start: l.start, line: l.line };
    }
  }
  // Its twin, if any, is in the next line: a pass ending on it reads it again next time.
  if (steer) {
    offset = steer.start;
    line = steer.line;
  }
  if (ctx.offset === 0 && lines > 0 && records === 0)
    throw new NotThisFormatError({
      file: ctx.file,
      expected: "a Codex rollout",
      because: "no line is {timestamp, type, payload} or a first-generation header",
    });
  // Messages an earlier pass took from response_item lines (no event yet) have event twins now: read the
  // rollout again whole, as one pass would, and let the messages no longer in it go.
  // A rollback may drop messages an earlier pass imported: read the rollout again whole, and let them go too.
  if (ctx.offset > 0 && ((ctx.state.events !== true && events) || rolledBack)) {
    const whole = await readRollout({ ...ctx, offset: 0, state: {} });
    for (const s of whole.sessions) s.complete = true;
    return whole;
  }
  const messages = events ? fromEvents : fromItems;
  const own = sessionId ?? rolloutUuid(ctx.file);
  // Current builds keep the name only in the home's session index; it is the latest, so it wins over an event's.
  const indexed = sessionId === undefined ? undefined : indexedThreadName(ctx.file, sessionId);
  named = indexed ?? named;
  const first = titled ? undefined : messages.find((m) => m.role === "user");
  const fallback = first ? titleFrom(first.content) : undefined;
  return {
    sessions: internal
      ? []
      : [
          {
            id: importedSessionId(PREFIX, own),
            title: named ?? fallback,
            titleIsFallback: named === undefined,
            project,
            parent: parent === undefined ? undefined : importedSessionId(PREFIX, parent),
            messages,
            // A file cut short no longer holds what it lost: that is not a rollback.
            ...(rolledBack && !incomplete && { complete: true }),
          },
        ],
    skipped,
    offset,
    ...(incomplete && { incomplete }),
    state: {
      sessionId,
      project,
      events,
      line,
      titled: titled || fallback !== undefined || named !== undefined,
      ...(parent !== undefined && { parent }),
      // A hash, never the name: the state is kept as it is (a name may hold a secret, which the title has redacted).
      ...(indexed !== undefined && { indexedNameHash: shortHash(indexed) }),
      ...(inTurn && { inTurn }),
      ...(last.user !== undefined && { lastUser: last.user }),
      ...(last.assistant !== undefined && { lastAssistant: last.assistant }),
      ...(legacy !== undefined && { legacyStart: String(legacy) }),
      ...(internal && { internal }),
    },
  };
}

/**
 * Threads Codex starts for its own work, recorded beside the person's: the compaction agent (source
 * {"subagent":"compact"}), the approval reviewer ({"subagent":{"other":"guardian"}}, thread_source guardian_review:
 * its prompt is the approval request, its answer a risk assessment) and memory consolidation ({"subagent":
 * "memory_consolidation"}, or an {"internal": …} source). A review the person asked for (/review) and a spawned
 * sub-agent are conversations and are kept.
 */
function codexOwnThread(meta: Record<string, unknown>): boolean {
  if (meta.thread_source === "guardian_review" || meta.thread_source === "memory_consolidation") return true;
  const source = meta.source;
  if (!isObject(source)) return false;
  if (source.internal !== undefined) return true;
  const sub = source.subagent ?? source.subAgent;
  if (sub === "compact" || sub === "memory_consolidation") return true;
  return isObject(sub) && sub.other === "guardian";
}

/**
 * A message event: event_msg user_message / agent_message {message} (until 0.146), or item_completed whose item is a
 * UserMessage / AgentMessage with text blocks (0.147 on, where the older events are no longer written).
 */
function eventMessage(
  p: Record<string, unknown>,
): { role: "user" | "assistant"; said: string; form: string } | undefined {
  if (p.type === "user_message" || p.type === "agent_message") {
    const said = typeof p.message === "string" ? p.message.trim() : "";
    return { role: p.type === "user_message" ? "user" : "assistant", said, form: "event" };
  }
  if (p.type !== "item_completed" || !isObject(p.item) || typeof p.item.type !== "string") return undefined;
  const kind = p.item.type.toLowerCase();
  if (kind !== "usermessage" && kind !== "agentmessage") return undefined;
  const parts: string[] = [];
  if (Array.isArray(p.item.content))
    for (const c of p.item.content)
      if (isObject(c) && typeof c.type === "string" && c.type.toLowerCase() === "text" && typeof c.text === "string")
        parts.push(c.text);
  return { role: kind === "usermessage" ? "user" : "assistant", said: parts.join("\n").trim(), form: "item" };
}

/** Codex's thread rollback: the newest `turns` user turns go, each from its user message on (all of them when fewer). */
function dropUserTurns(messages: ImportedMessage[], turns: number): void {
  if (!(turns > 0)) return;
  const users: number[] = [];
  messages.forEach((m, i) => {
    if (m.role === "user") users.push(i);
  });
  if (users.length === 0) return;
  messages.length = users[Math.max(0, users.length - turns)]!;
}

const blockHash = (text: string) => Bun.CryptoHasher.hash("sha256", text, "hex").slice(0, 16);

/** Text of a response_item message: input_text/output_text parts, injected context blocks left out. */
function itemText(content: unknown): string {
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const c of content) {
    if (!isObject(c) || (c.type !== "input_text" && c.type !== "output_text") || typeof c.text !== "string") continue;
    if (INJECTED.test(c.text)) continue;
    const t = c.text.trim();
    if (t !== "") parts.push(t);
  }
  return parts.join("\n\n");
}

const MS = 1_000_000n;

/** A user response item that is no one's typing: injected tags (skills, notifications), the AGENTS.md block. */
const STEER_NOT = /^\s*(?:<|# AGENTS\.md instructions)/;

/** The headings the IDE extension and the desktop app put before the person's words, then the words' own heading. */
const WRAPPED = /^# (?:Context from my IDE setup|Files mentioned by the user):/;
const REQUEST = "\n## My request for Codex:";

/** A user message's own words: the IDE's active file and open tabs, or the attached files' list, are left out. */
function requestOf(text: string): string {
  if (!WRAPPED.test(text)) return text;
  const at = text.indexOf(REQUEST);
  return at < 0 ? text : text.slice(at + REQUEST.length).trim();
}

/** The start time of a first-generation rollout's header line {id, timestamp, instructions?, git?}; else undefined. */
function legacyHeader(r: Record<string, unknown>): bigint | undefined {
  if (r.type !== undefined || typeof r.id !== "string" || typeof r.timestamp !== "string") return undefined;
  return recordTime(r.timestamp);
}

/** The working folder an injected <environment_context> names, if a message carries one. */
function contextCwd(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  for (const c of content) {
    if (!isObject(c) || typeof c.text !== "string" || !c.text.includes("<environment_context>")) continue;
    const m = /<cwd>([^<\n]+)<\/cwd>/.exec(c.text);
    if (m) return m[1]!.trim();
  }
  return undefined;
}

/**
 * The parent thread of a sub-agent's rollout: session_meta parent_thread_id (current builds), else its source
 * {"subagent": {"thread_spawn": {parent_thread_id}}}.
 */
function spawnedBy(meta: Record<string, unknown>): string | undefined {
  const source = meta.source;
  const spawn =
    isObject(source) && isObject(source.subagent) && isObject(source.subagent.thread_spawn)
      ? source.subagent.thread_spawn.parent_thread_id
      : undefined;
  const id = typeof meta.parent_thread_id === "string" && meta.parent_thread_id !== "" ? meta.parent_thread_id : spawn;
  return typeof id === "string" && id !== "" ? id : undefined;
}

function rolloutUuid(file: string): string {
  const name = basename(file).replace(/\.jsonl(\.zst)?$/, "");
  const m = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i.exec(name);
  return m ? m[1]! : name;
}

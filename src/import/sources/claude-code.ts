// Claude Code transcripts: ~/.claude/projects/<encoded-cwd>/<sessionId>.jsonl ($CLAUDE_CONFIG_DIR moves ~/.claude; some
// installs keep them in ~/.config/claude/projects),
// sub-agents in <sessionId>/subagents/agent-<id>.jsonl (newer), agent-<id>.jsonl beside the session (older), or inline as
// records marked isSidechain (before 2.0.28).
import { basename, join } from "node:path";
import { importedSessionId, shortHash } from "../../shared/import-id.ts";
import type { Role } from "../../shared/message.ts";
import { recordTime } from "../record-time.ts";
import { NotThisFormatError } from "../import-types.ts";
import type { FileRead, ImportedMessage, ImportedSession, Problem, ReadContext, Source } from "../import-types.ts";
import { holdsBefore, isObject, jsonlLines, lineAt, tryJson } from "../read-lines.ts";
import { homeOf, listFiles, titleFrom } from "../source-files.ts";
import {
  besideToolResult,
  cleanUserText,
  orderByChain,
  rejectionFeedback,
  rewoundEntries,
  type ChainEntry,
} from "./claude-code-text.ts";
import { PromptQueue, queuedText } from "./claude-code-queue.ts";
import { Sidechains } from "./claude-code-sidechains.ts";

const PREFIX = "cc";
/** How many prompts' parents a transcript's state keeps to see a rewind of turns read by an earlier pass. */
const PROMPTS_KEPT = 1000;
/**
 * Agents Claude Code runs for itself, not for the person: auto-compaction (agent-acompact-*, the conversation retold to
 * be summarized) and the prompt suggestion (agent-aprompt_suggestion-*, asked to guess the person's next prompt).
 */
const INTERNAL_AGENT = /^agent-a(?:compact|prompt_suggestion)-/;
/**
 * A dynamic workflow's run keeps, beside its agents' transcripts, a journal of their starts and results
 * (<sessionId>/subagents/workflows/<runId>/journal.jsonl: {"type":"started","agentId"} lines): no conversation.
 */
const WORKFLOW_JOURNAL = /[\\/]workflows[\\/][^\\/]+[\\/]journal\.jsonl$/;

interface Pending {
  key: string;
  role: Role;
  blocks: string[];
  sendAt: bigint;
  /** The prompt of a side question (/btw), in Claude Code's wrapper. */
  side?: boolean;
  /** The Claude Code session the record belongs to, when it is not this file's (a fork's or a resume's copy). */
  of?: string;
}

/** How Claude Code hands a side question (/btw) to the agent that answers it. */
const SIDE_QUESTION = /^\s*<system-reminder>\s*This is a side question from the user\b/;

/**
 * The last reply of the previous pass, which may still be streaming: records with its key that arrive later
 * continue it (same id, at its first record's time). Blocks are kept as short hashes, never as text.
 */
interface OpenReply {
  key: string;
  sendAt: string;
  blocks: string[];
}

export const claudeCode: Source = {
  name: "claude-code",
  prefix: PREFIX,
  // Claude Code 1.0.29 and 1.0.30 moved the folder to $XDG_CONFIG_HOME/claude (~/.config/claude) on Linux; transcripts
  // written then are still there.
  defaultPaths: (env) =>
    env.CLAUDE_CONFIG_DIR
      ? [join(env.CLAUDE_CONFIG_DIR, "projects")]
      : [
          join(homeOf(env), ".claude", "projects"),
          join(env.XDG_CONFIG_HOME || join(homeOf(env), ".config"), "claude", "projects"),
        ],
  files: (path) =>
    listFiles(
      path,
      (name, full) => name.endsWith(".jsonl") && !INTERNAL_AGENT.test(name) && !WORKFLOW_JOURNAL.test(full),
    ),
  appendOnly: () => true,
  read: readTranscript,
};

function readTranscript(ctx: ReadContext): FileRead {
  const skipped: Problem[] = [];
  const entries: ChainEntry<Pending>[] = [];
  let sessionId = typeof ctx.state.sessionId === "string" ? ctx.state.sessionId : undefined;
  let project = typeof ctx.state.project === "string" ? ctx.state.project : undefined;
  let line = typeof ctx.state.line === "number" ? ctx.state.line : 1;
  let offset = ctx.offset;
  const open = isOpenReply(ctx.state.open) ? ctx.state.open : undefined;
  // A pass that resumes mid-file sees only later turns: the first user line was offered before (state kept
  // before this flag existed: assume so).
  const titled = ctx.state.titled === true || (ctx.offset > 0 && ctx.state.titled === undefined);
  const name = basename(ctx.file, ".jsonl");
  const subAgent = name.startsWith("agent-");
  // Transcripts of Claude Code before 2.0.28 hold their sub-agents' conversations inline (isSidechain): each chain of
  // them is a sub-agent session of its own, named by its first record. Chain tips carried to the next pass.
  const sides = new Sidechains<Pending>(ctx.state.sidechains);
  // Prompts typed while Claude was busy, whose only record may be a queue line or an attachment.
  const queue = new PromptQueue(ctx.file, ctx.state.queue);
  let lastKey: string | undefined;
  let lastUuid: string | undefined;
  // The tool's own titles, best first: the person's /rename, the AI title, a summary record. A later pass offers
  // one only when it ranks as high as the one an earlier pass gave.
  const givenRank = typeof ctx.state.titleRank === "number" ? ctx.state.titleRank : 0;
  let title: string | undefined;
  let rank = 0;
  // Summary records name the conversation that ends at their leafUuid. Claude Code 1.0 wrote the summaries of earlier
  // sessions into the file of the session being started: only one whose leaf is in this file names this session.
  // A summary can come before its leaf (a pass that read the file while it was being written): it waits in the state.
  const summaries: Summary[] = waitingSummaries(ctx.state.summaries);
  const uuids = new Set<string>();
  let records = 0;
  let lines = 0;
  // The session this one was forked or resumed from: the one its first records were copied from.
  let from = typeof ctx.state.from === "string" ? ctx.state.from : undefined;
  let ownSeen = ctx.offset > 0;
  // The person's prompts in the chain (not tool results): a rewind shows as two of them sharing a parent.
  const prompts = new Set<ChainEntry<Pending>>();
  for (const l of jsonlLines(ctx.file, ctx.offset, line, false, ctx.onRead)) {
    offset = l.end;
    line = l.line + 1;
    if (l.text.trim() === "") continue;
    lines++;
    const r = tryJson(l.text);
    if (!isObject(r) || typeof r.type !== "string") {
      skipped.push({
        file: ctx.file,
        line: l.line,
        reason: r === undefined ? "not valid JSON" : "not a transcript record",
      });
      continue;
    }
    if (isClaudeRecord(r)) records++;
    if (typeof r.sessionId === "string" && sessionId === undefined) sessionId = r.sessionId;
    if (typeof r.cwd === "string" && project === undefined) project = r.cwd;
    const named = ownTitle(r);
    if (named && r.type === "summary") summaries.push({ ...named, leaf: r.leafUuid, start: l.start, line: l.line });
    else if (named && named.rank >= rank) ({ title, rank } = named);
    const uuid = typeof r.uuid === "string" ? r.uuid : undefined;
    if (uuid !== undefined) uuids.add(uuid);
    // A queue line has no place in the chain: its prompt follows the record written before it.
    const parent =
      typeof r.parentUuid === "string" ? r.parentUuid : r.type === "queue-operation" ? lastUuid : undefined;
    const message =
      r.type === "user" || r.type === "assistant"
        ? toPending(r, ctx.file, l.line, skipped, queue)
        : r.type === "attachment"
          ? absorbedPrompt(r, ctx.file, l.line, skipped, queue)
          : r.type === "queue-operation"
            ? queuedPrompt(r, ctx.file, l.line, skipped, queue.operation(r, l.start, l.line))
            : undefined;
    const owner = ownerOf(r, subAgent ? undefined : name);
    if (owner === undefined) ownSeen ||= typeof r.sessionId === "string";
    else if (!ownSeen && from === undefined) from = owner;
    if (message && owner !== undefined) message.of = owner;
    const entry = { uuid, parent, line: l.line, value: message };
    if (uuid !== undefined && r.isSidechain !== true) lastUuid = uuid;
    if (!subAgent && r.isSidechain === true) {
      sides.add(entry);
      continue;
    }
    // Prompts absorbed mid-turn and answers to a permission prompt can sit between the records of one reply.
    if (message?.role === "assistant") lastKey = message.key;
    if (!subAgent && r.type === "user" && message?.role === "user" && !holdsToolResult(r)) prompts.add(entry);
    entries.push(entry);
  }
  // A pass resuming mid-file (live capture) may meet a summary whose leaf an earlier pass read.
  const ofThisFile = (leaf: string) =>
    uuids.has(leaf) || (ctx.offset > 0 && holdsBefore(ctx.file, ctx.offset, `"uuid":${JSON.stringify(leaf)}`));
  // One kept from an earlier pass waits for its leaf in what this pass read; the bytes before were searched then.
  const summary = summaries.findLast((x) =>
    typeof x.leaf !== "string" ? true : x.waited ? uuids.has(x.leaf) : ofThisFile(x.leaf),
  );
  const summarized = summary && summary.rank >= rank ? summaryTitle(ctx.file, summary) : undefined;
  if (summary && summarized !== undefined) ({ title, rank } = { title: summarized, rank: summary.rank });
  // Kept by where the record is and a hash of its text, never the text (it may hold a secret): read again when used.
  const waiting = (summary ? summaries.slice(summaries.indexOf(summary) + 1) : summaries).flatMap((x) =>
    typeof x.leaf === "string" && x.start !== undefined && x.line !== undefined
      ? [{ rank: x.rank, leaf: x.leaf, start: x.start, line: x.line, h: x.h ?? blockHash(x.title ?? "") }]
      : [],
  );
  if (ctx.offset === 0 && lines > 0 && records === 0)
    throw new NotThisFormatError({
      file: ctx.file,
      expected: "a Claude Code transcript",
      because: "no line is a Claude Code record",
    });
  // A prompt hanging off a record that an earlier pass saw take a prompt already is a rewind of turns that pass
  // imported: read the file whole to tell which. The parents of the latest prompts are kept as short hashes.
  const earlier = Array.isArray(ctx.state.prompted) ? ctx.state.prompted.filter((h) => typeof h === "string") : [];
  const seen = new Set(earlier);
  if (ctx.offset > 0 && [...prompts].some((e) => e.parent !== undefined && seen.has(shortHash(e.parent))))
    return readTranscript({ ...ctx, offset: 0, state: {} });
  const prompted = [...earlier, ...[...prompts].flatMap((e) => (e.parent === undefined ? [] : [shortHash(e.parent)]))];
  const rewound = rewoundEntries(entries, prompts);
  // A side question's agent (/btw) starts from a copy of the conversation so far: its own messages start at the question.
  const sideAgent = subAgent && name.startsWith("agent-aside_question-");
  let ordered = orderByChain(rewound.size === 0 ? entries : entries.filter((e) => !rewound.has(e)));
  let asked = ctx.state.asked === true;
  if (sideAgent && !asked) {
    const at = ordered.findIndex((p) => p.side === true);
    asked = at >= 0;
    ordered = asked ? ordered.slice(at) : [];
  }
  const merged = mergeStreamed(ordered, open);
  const { replies } = merged;
  // Copies of another session's records go to that session, under the keys and times its own file gives them: the
  // same ids, so nothing is doubled, and nothing is lost when that file is gone (Claude Code's cleanup).
  const messages: ImportedMessage[] = [];
  const copies = new Map<string, ImportedMessage[]>();
  for (const { of, ...m } of merged.messages) {
    if (of === undefined) messages.push(m);
    else if (copies.has(of)) copies.get(of)!.push(m);
    else copies.set(of, [m]);
  }
  // A transcript is named by its session id; a resumed session's file may start with records copied from the
  // earlier session (their sessionId is the old one), so the name decides. A sub-agent's records name its parent.
  const id = importedSessionId(PREFIX, subAgent ? `${sessionId ?? "unknown"}-${name}` : name);
  // Claude Code 2.0 starts warm-up agents with the prompt "Warmup" at each session start: no conversation.
  const warmup =
    ctx.state.warmup === true ||
    (subAgent && ctx.offset === 0 && messages.find((m) => m.role === "user")?.content === "Warmup");
  const first = titled ? undefined : messages.find((m) => m.role === "user");
  const fallback = first ? titleFrom(first.content) : undefined;
  // A sub-agent's parent is the session it ran in; a fork's, the session it was forked from.
  const parentOf = subAgent ? sessionId : from;
  return {
    sessions: warmup
      ? []
      : [
          ...[...copies].map(([other, own]): ImportedSession => {
            const prompt = ctx.offset === 0 ? own.find((m) => m.role === "user") : undefined;
            return {
              id: importedSessionId(PREFIX, other),
              title: prompt ? titleFrom(prompt.content) : undefined,
              titleIsFallback: true,
              project,
              messages: own,
            };
          }),
          {
            id,
            title: (rank >= givenRank ? title : undefined) ?? fallback,
            titleIsFallback: title === undefined || rank < givenRank,
            project,
            ...(rewound.size > 0 && { dropped: takenBack(entries, rewound) }),
            parent: parentOf === undefined ? undefined : importedSessionId(PREFIX, parentOf),
            messages,
          },
          ...[...sides.chains()].map(([root, chain, isNew]): ImportedSession => {
            const own = mergeStreamed(orderByChain(chain), undefined).messages;
            const prompt = isNew ? own.find((m) => m.role === "user") : undefined;
            return {
              id: importedSessionId(PREFIX, `${name}-sidechain-${root}`),
              title: prompt ? titleFrom(prompt.content) : undefined,
              titleIsFallback: true,
              project,
              parent: id,
              messages: own,
            };
          }),
        ],
    skipped,
    offset,
    state: {
      sessionId,
      project,
      line,
      open: lastKey === undefined ? open : replies.get(lastKey),
      titled: titled || fallback !== undefined,
      titleRank: Math.max(rank, givenRank),
      ...(sides.size > 0 && { sidechains: sides.tips() }),
      ...(queue.state() && { queue: queue.state() }),
      ...(warmup && { warmup }),
      ...(asked && { asked }),
      ...(from !== undefined && { from }),
      ...(prompted.length > 0 && { prompted: prompted.slice(-PROMPTS_KEPT) }),
      ...(waiting.length > 0 && { summaries: waiting.slice(-SUMMARIES_KEPT) }),
    },
  };
}

/** This file's messages in the turns a rewind took back (copies of another session's records stay that session's). */
function takenBack(
  entries: readonly ChainEntry<Pending>[],
  rewound: ReadonlySet<ChainEntry<Pending>>,
): { key: string; sendAt: bigint }[] {
  const gone = mergeStreamed(orderByChain(entries.filter((e) => rewound.has(e))), undefined).messages;
  return gone.filter((m) => m.of === undefined).map((m) => ({ key: m.key, sendAt: m.sendAt }));
}

/** A user record that answers a tool call (its content holds a tool_result): not a prompt of its own. */
const holdsToolResult = (r: Record<string, unknown>) =>
  isObject(r.message) &&
  Array.isArray(r.message.content) &&
  r.message.content.some((b) => isObject(b) && b.type === "tool_result");

/**
 * The Claude Code session a record belongs to when it is not this file's: a fork's copy of the conversation it started
 * from names it in forkedFrom (2.x); a resumed session's file starts with the earlier session's records, which keep
 * its sessionId (1.0). `file`: this file's session id (none for a sub-agent's file, whose records name its parent).
 */
function ownerOf(r: Record<string, unknown>, file: string | undefined): string | undefined {
  const forked = isObject(r.forkedFrom) ? r.forkedFrom.sessionId : undefined;
  if (typeof forked === "string" && forked !== "" && forked !== file) return forked;
  return file !== undefined && typeof r.sessionId === "string" && r.sessionId !== "" && r.sessionId !== file
    ? r.sessionId
    : undefined;
}

/** Summaries whose leaf no earlier pass had read yet (Claude Code 1.0 also wrote other sessions' summaries, which never get one). */
const SUMMARIES_KEPT = 16;

/**
 * A summary record: its title when read in this pass; one waiting from an earlier pass has the record's place in the
 * file (start, line) and a hash of its title instead (a state written before kept the title itself).
 */
type Summary = {
  title?: string;
  rank: number;
  leaf: unknown;
  waited?: true;
  start?: number;
  line?: number;
  h?: string;
};

function waitingSummaries(kept: unknown): Summary[] {
  if (!Array.isArray(kept)) return [];
  return kept.flatMap((x): Summary[] => {
    if (!isObject(x) || typeof x.rank !== "number" || typeof x.leaf !== "string") return [];
    if (typeof x.title === "string") return [{ title: x.title, rank: x.rank, leaf: x.leaf, waited: true }];
    return typeof x.start === "number" && typeof x.line === "number" && typeof x.h === "string"
      ? [{ rank: x.rank, leaf: x.leaf, waited: true, start: x.start, line: x.line, h: x.h }]
      : [];
  });
}

/** A summary's title: as read in this pass, else its record read again (undefined when the line no longer holds it). */
function summaryTitle(file: string, x: Summary): string | undefined {
  if (x.title !== undefined) return x.title;
  if (x.start === undefined || x.line === undefined) return undefined;
  const first = lineAt(file, x.start, x.line);
  const r = first === undefined ? undefined : tryJson(first.text);
  const title = isObject(r) && r.type === "summary" ? ownTitle(r)?.title : undefined;
  return title !== undefined && blockHash(title) === x.h ? title : undefined;
}

/** A title record: the person's rename (custom-title), the AI-generated title (ai-title), a summary record. */
function ownTitle(r: Record<string, unknown>): { title: string; rank: number } | undefined {
  const pick = (v: unknown, rank: number) =>
    typeof v === "string" && v.trim() !== "" ? { title: v.trim(), rank } : undefined;
  if (r.type === "custom-title") return pick(r.customTitle, 3);
  if (r.type === "ai-title") return pick(r.aiTitle, 2);
  if (r.type === "summary") return pick(r.summary, 1);
  return undefined;
}

/**
 * A line only Claude Code writes: a chain record (`uuid`), any typed record naming its `sessionId`, or the two kinds
 * that carry neither. Other tools' JSONL (a Codex rollout, a Gemini chat, a memvoy export) has none of these.
 */
const isClaudeRecord = (r: Record<string, unknown>) =>
  typeof r.uuid === "string" ||
  typeof r.sessionId === "string" ||
  (r.type === "summary" && typeof r.summary === "string") ||
  (r.type === "file-history-snapshot" && isObject(r.snapshot));

const isOpenReply = (v: unknown): v is OpenReply =>
  isObject(v) && typeof v.key === "string" && typeof v.sendAt === "string" && Array.isArray(v.blocks);

const blockHash = (text: string) => Bun.CryptoHasher.hash("sha256", text, "hex").slice(0, 16);

/** A user or assistant record as a message in the making; undefined when it holds no conversation text. */
function toPending(
  r: Record<string, unknown>,
  file: string,
  line: number,
  skipped: Problem[],
  queue: PromptQueue,
): Pending | undefined {
  if (
    r.isMeta === true ||
    r.isCompactSummary === true ||
    r.isApiErrorMessage === true ||
    r.isVisibleInTranscriptOnly === true
  )
    return undefined;
  const msg = r.message;
  if (!isObject(msg)) return undefined;
  const role: Role = r.type === "assistant" ? "assistant" : "user";
  // Claude Code's own stand-in for a reply ("No response requested.", a usage-limit notice): no model wrote it.
  if (role === "assistant" && msg.model === "<synthetic>") return undefined;
  // A prompt Claude Code started itself, or delivered from another session, agent, channel or plugin, names its origin.
  if (role === "user" && (r.promptSource === "system" || (isObject(r.origin) && r.origin.kind !== "human")))
    return undefined;
  const blocks: string[] = [];
  const content = msg.content;
  let toolAnswer = false;
  if (typeof content === "string") blocks.push(content);
  else if (Array.isArray(content)) {
    // Only text blocks: tool_use, thinking and images are not conversation text. A tool's result is not either, but
    // the person may have answered the permission prompt with words: after a refusal they are in the result, after
    // an approval they are a text block beside it.
    for (const b of content) {
      if (!isObject(b)) continue;
      if (b.type === "text" && typeof b.text === "string") blocks.push(b.text);
      else if (role === "user" && b.type === "tool_result") {
        toolAnswer = true;
        const said = rejectionFeedback(b.content);
        if (said !== undefined) blocks.push(said);
      }
    }
  }
  const clean = role === "assistant" ? (b: string) => b.trim() : toolAnswer ? besideToolResult : cleanUserText;
  const texts = blocks.map(clean).filter((t): t is string => !!t);
  if (texts.length === 0) return undefined;
  if (role === "user" && !toolAnswer) queue.prompt(texts.join("\n"));
  const p = pendingOf(r, role, texts, file, line, skipped);
  if (p && role === "user" && blocks.some((b) => SIDE_QUESTION.test(b))) p.side = true;
  return p;
}

/** A queued_command attachment: a prompt the running turn absorbed (2.1.97 on), when it holds the person's words. */
function absorbedPrompt(
  r: Record<string, unknown>,
  file: string,
  line: number,
  skipped: Problem[],
  queue: PromptQueue,
): Pending | undefined {
  const a = r.attachment;
  if (!isObject(a) || a.type !== "queued_command" || a.isMeta === true) return undefined;
  // Notifications, other sessions and agents queue their text too, with an origin of their own.
  if (a.commandMode !== undefined && a.commandMode !== "prompt") return undefined;
  if (isObject(a.origin) && a.origin.kind !== "human") return undefined;
  const raw =
    typeof a.prompt === "string"
      ? a.prompt
      : Array.isArray(a.prompt)
        ? a.prompt
            .filter((b) => isObject(b) && b.type === "text" && typeof b.text === "string")
            .map((b) => (b as { text: string }).text)
            .join("\n")
        : "";
  const text = queuedText(raw);
  if (text === undefined || !queue.attachment(text)) return undefined;
  return pendingOf(r, "user", [text], file, line, skipped);
}

/** The person's words a queue line holds as their only record (absorbed mid-turn), as a message. */
function queuedPrompt(
  r: Record<string, unknown>,
  file: string,
  line: number,
  skipped: Problem[],
  words: string | undefined,
): Pending | undefined {
  return words === undefined
    ? undefined
    : pendingOf({ ...r, uuid: `queue-${line}` }, "user", [words], file, line, skipped);
}

function pendingOf(
  r: Record<string, unknown>,
  role: Role,
  texts: string[],
  file: string,
  line: number,
  skipped: Problem[],
): Pending | undefined {
  const sendAt = typeof r.timestamp === "string" ? recordTime(r.timestamp) : undefined;
  if (sendAt === undefined) {
    skipped.push({ file, line, reason: "record has no valid timestamp" });
    return undefined;
  }
  // A fork's copy names the record it copies (forks made through the SDK give copies new uuids).
  const copied = isObject(r.forkedFrom) ? r.forkedFrom.messageUuid : undefined;
  const uuid = typeof copied === "string" ? copied : typeof r.uuid === "string" ? r.uuid : `line-${line}`;
  // Streaming writes one response as several records sharing message.id and requestId: one message.
  const msg = isObject(r.message) ? r.message : {};
  const key =
    role === "assistant" && typeof msg.id === "string"
      ? `${msg.id}\0${typeof r.requestId === "string" ? r.requestId : ""}`
      : uuid;
  return { key, role, blocks: texts, sendAt };
}

/**
 * Records with the same key become one message: distinct blocks joined in first-seen order, at the first record's
 * time. Records continuing the previous pass's open reply carry only blocks it did not have (`continues`).
 */
function mergeStreamed(
  ordered: Pending[],
  open: OpenReply | undefined,
): { messages: (ImportedMessage & { of?: string })[]; replies: Map<string, OpenReply> } {
  const byKey = new Map<string, Pending & { known: Set<string>; continues: boolean }>();
  const out: (Pending & { known: Set<string>; continues: boolean })[] = [];
  for (const p of ordered) {
    let seen = byKey.get(p.key);
    if (!seen) {
      const continues = open !== undefined && p.key === open.key && p.role === "assistant";
      seen = {
        ...p,
        blocks: [],
        sendAt: continues ? BigInt(open.sendAt) : p.sendAt,
        known: new Set(continues ? open.blocks : []),
        continues,
      };
      byKey.set(p.key, seen);
      out.push(seen);
    }
    for (const b of p.blocks) {
      const h = blockHash(b);
      if (seen.known.has(h)) continue;
      seen.known.add(h);
      seen.blocks.push(b);
    }
  }
  const replies = new Map<string, OpenReply>();
  for (const p of out)
    if (p.role === "assistant") replies.set(p.key, { key: p.key, sendAt: String(p.sendAt), blocks: [...p.known] });
  const messages = out
    .filter((p) => p.blocks.length > 0)
    .map((p) => {
      const m: ImportedMessage & { of?: string } = {
        key: p.key,
        role: p.role,
        content: p.blocks.join("\n\n"),
        sendAt: p.sendAt,
      };
      if (p.continues) m.continues = true;
      if (p.of !== undefined) m.of = p.of;
      return m;
    });
  return { messages, replies };
}

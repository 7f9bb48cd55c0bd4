// ChatGPT data export: the zip, its conversations.json (an array) or sharded conversations-NNN.json, named by
// PATH (no default location). Only the active branch: from current_node up the parent links.
import { statSync } from "node:fs";
import { basename } from "node:path";
import { importedSessionId } from "../../shared/import-id.ts";
import { NotThisFormatError } from "../import-types.ts";
import type { FileRead, ImportedMessage, ImportedSession, Problem, ReadContext, Source } from "../import-types.ts";
import { isObject, readTextLimited, textOf, tryJson } from "../read-lines.ts";
import { listFiles, titleFrom } from "../source-files.ts";
import { readZipEntry, zipEntries } from "../zip-entries.ts";

const PREFIX = "gpt";
const MAX_JSON = 1024 * 1024 * 1024;
const CONVERSATIONS = /^conversations(-\d+)?\.json$/;

type Rec = Record<string, unknown>;

export const chatgpt: Source = {
  name: "chatgpt",
  prefix: PREFIX,
  defaultPaths: () => undefined,
  files: (path) => listFiles(path, (name) => CONVERSATIONS.test(name) || name.endsWith(".zip")),
  appendOnly: () => false,
  read: readExport,
};

function readExport(ctx: ReadContext): FileRead {
  const skipped: Problem[] = [];
  const docs: { where: string; text: string }[] = [];
  if (ctx.file.endsWith(".zip")) {
    const entries = zipEntries(ctx.file).filter((e) => CONVERSATIONS.test(basename(e.name)));
    if (entries.length === 0)
      throw new NotThisFormatError({
        file: ctx.file,
        expected: "a ChatGPT export",
        because: "no conversations.json inside",
      });
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name)))
      docs.push({ where: `${ctx.file}:${e.name}`, text: textOf(readZipEntry(ctx.file, e)) });
  } else docs.push({ where: ctx.file, text: readTextLimited(ctx.file, MAX_JSON, statSync(ctx.file).size) });
  const sessions: ImportedSession[] = [];
  for (const doc of docs) {
    const list = tryJson(doc.text);
    if (!Array.isArray(list))
      throw new NotThisFormatError({
        file: doc.where,
        expected: "a ChatGPT export",
        because: "conversations must be a JSON array",
      });
    // Another tool's conversations.json (a Claude.ai export's chat_messages, say): no record is a ChatGPT conversation,
    // not even an empty one (those keep their current_node, conversation_id and create_time without a mapping).
    if (list.length > 0 && !list.some(isConversation))
      throw new NotThisFormatError({
        file: doc.where,
        expected: "a ChatGPT export",
        because: "no conversation has a mapping of messages",
      });
    list.forEach((c, i) => {
      const s = isObject(c) ? toSession(c) : undefined;
      if (s) sessions.push(s);
      else skipped.push({ file: doc.where, line: i + 1, reason: `conversation ${i + 1} has no id or mapping` });
    });
  }
  return { sessions, skipped };
}

const isConversation = (c: unknown): boolean =>
  isObject(c) &&
  (isObject(c.mapping) || "current_node" in c || "conversation_id" in c || typeof c.create_time === "number");

function toSession(c: Rec): ImportedSession | undefined {
  const id = typeof c.id === "string" ? c.id : typeof c.conversation_id === "string" ? c.conversation_id : undefined;
  if (!id || !isObject(c.mapping)) return undefined;
  const mapping = c.mapping;
  const convTime = typeof c.create_time === "number" ? c.create_time : 0;
  // The active branch: current_node and its ancestors (regenerated and edited branches are left out).
  const chain: Rec[] = [];
  const seen = new Set<string>();
  let node =
    typeof c.current_node === "string" && isObject(mapping[c.current_node]) ? c.current_node : newestLeaf(mapping);
  while (node !== undefined && !seen.has(node)) {
    seen.add(node);
    const n = mapping[node];
    if (!isObject(n)) break;
    chain.push(n);
    node = typeof n.parent === "string" ? n.parent : undefined;
  }
  chain.reverse();
  const messages: ImportedMessage[] = [];
  let last = convTime;
  for (const n of chain) {
    const m = n.message;
    if (!isObject(m) || !isObject(m.author)) continue;
    const role = m.author.role;
    if (role !== "user" && role !== "assistant") continue;
    if (isObject(m.metadata) && m.metadata.is_visually_hidden_from_conversation === true) continue;
    if (role === "assistant" && typeof m.recipient === "string" && m.recipient !== "all") continue; // a tool call
    const text = contentText(m.content);
    if (text === "") continue;
    const t = typeof m.create_time === "number" ? m.create_time : last;
    last = t;
    messages.push({
      key: typeof m.id === "string" ? m.id : String(n.id),
      role,
      content: text,
      sendAt: BigInt(Math.round(t * 1e6)) * 1000n,
    });
  }
  const title = typeof c.title === "string" && c.title.trim() !== "" ? c.title.trim() : undefined;
  const first = messages.find((m) => m.role === "user");
  return {
    id: importedSessionId(PREFIX, id),
    title: title ?? (first ? titleFrom(first.content) : undefined),
    titleIsFallback: title === undefined,
    messages,
    dropped: offBranch(mapping, seen),
  };
}

/**
 * The messages of the branches left (a prompt edited, a reply regenerated since an earlier export): an earlier import
 * of the conversation may have taken them when they were on the active branch.
 */
function offBranch(mapping: Rec, branch: ReadonlySet<string>): { key: string; sendAt: bigint }[] {
  const out: { key: string; sendAt: bigint }[] = [];
  for (const [id, n] of Object.entries(mapping)) {
    if (branch.has(id) || !isObject(n) || !isObject(n.message)) continue;
    const m = n.message;
    const role = isObject(m.author) ? m.author.role : undefined;
    if ((role !== "user" && role !== "assistant") || typeof m.create_time !== "number") continue;
    out.push({
      key: typeof m.id === "string" ? m.id : String(n.id),
      sendAt: BigInt(Math.round(m.create_time * 1e6)) * 1000n,
    });
  }
  return out;
}

/**
 * Text of a message: `text` and `multimodal_text` string parts, and the transcription of a spoken (voice mode) part;
 * images, audio, code, tool output and thoughts are left out.
 */
function contentText(content: unknown): string {
  if (!isObject(content)) return "";
  if (content.content_type !== "text" && content.content_type !== "multimodal_text") return "";
  if (Array.isArray(content.parts))
    return content.parts
      .map((p) =>
        typeof p === "string"
          ? p
          : isObject(p) && p.content_type === "audio_transcription" && typeof p.text === "string"
            ? p.text
            : undefined,
      )
      .filter((p): p is string => p !== undefined)
      .join("\n")
      .trim();
  return typeof content.text === "string" ? content.text.trim() : "";
}

/**
 * Without current_node (or with one the mapping lacks): the leaf whose message is newest. Leaves are found from the
 * parent links, which every export has (slim ones leave out the children lists).
 */
function newestLeaf(mapping: Rec): string | undefined {
  const parents = new Set<string>();
  for (const n of Object.values(mapping)) if (isObject(n) && typeof n.parent === "string") parents.add(n.parent);
  let best: string | undefined;
  let bestTime = Number.NEGATIVE_INFINITY;
  for (const [id, n] of Object.entries(mapping)) {
    if (!isObject(n) || parents.has(id)) continue;
    const m = n.message;
    const t = isObject(m) && typeof m.create_time === "number" ? m.create_time : Number.NEGATIVE_INFINITY;
    if (best === undefined || t >= bestTime) {
      best = id;
      bestTime = t;
    }
  }
  return best;
}

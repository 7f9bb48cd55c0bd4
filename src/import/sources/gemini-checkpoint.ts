// Gemini CLI's /chat save checkpoints: tmp/<project>/checkpoint-<tag>.json (checkpoint.json, untagged, in the first
// builds), the model's history when it was saved ({history: Content[], authType}, or the Content[] alone from older
// builds). It has no ids or times: a turn is keyed by its place and text and timed from the file's first read. A turn that a chat of the same project holds (the
// conversation the checkpoint was saved from) is that chat's and is not imported twice, also after the chat is gone.
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { importedSessionId, shortHash } from "../../shared/import-id.ts";
import { NotThisFormatError } from "../import-types.ts";
import type { FileRead, ImportedMessage, Problem, ReadContext } from "../import-types.ts";
import { isObject, readTextLimited, tryJson } from "../read-lines.ts";
import { titleFrom } from "../source-files.ts";
import { contentText, isInjected, promptText } from "./gemini-text.ts";

const MAX_CHECKPOINT = 512 * 1024 * 1024;
const MS = 1_000_000n;

/** The CLI's answer to the session context in older builds: its second turn, not a reply to the person. */
const CONTEXT_ACK = "Got it. Thanks for the context!";

/** A checkpoint file: checkpoint-<tag>.json in a project's folder (not a chat, nor the checkpoints/ of file edits). */
export function isCheckpoint(file: string): boolean {
  const name = basename(file);
  const folder = basename(dirname(file));
  // The first builds (to July 2025) also saved an untagged /chat save as checkpoint.json.
  const named = name === "checkpoint.json" || (name.startsWith("checkpoint-") && name.endsWith(".json"));
  return named && folder !== "chats" && folder !== "checkpoints";
}

/**
 * `chatTurns`: the turns of the project's chats (each chat file under chats/, read as the importer reads it), to
 * leave out of the checkpoint the turns they hold.
 */
export function readCheckpoint(ctx: ReadContext, chatTurns: (folder: string) => ImportedMessage[]): FileRead {
  const skipped: Problem[] = [];
  const doc = tryJson(readTextLimited(ctx.file, MAX_CHECKPOINT, statSync(ctx.file).size));
  const history = Array.isArray(doc) ? doc : isObject(doc) && Array.isArray(doc.history) ? doc.history : undefined;
  if (history === undefined)
    throw new NotThisFormatError({ file: ctx.file, expected: "a Gemini CLI checkpoint", because: "no history array" });
  const project = dirname(ctx.file);
  const inChats = new Set(chatTurns(join(project, "chats")).map((m) => turnHash(m.role, m.content)));
  const seen = new Set(Array.isArray(ctx.prior.seen) ? ctx.prior.seen.filter((h) => typeof h === "string") : []);
  const base =
    typeof ctx.prior.base === "string" && /^\d+$/.test(ctx.prior.base)
      ? BigInt(ctx.prior.base)
      : statSync(ctx.file, { bigint: true }).mtimeNs;
  const messages: ImportedMessage[] = [];
  history.forEach((turn, i) => {
    if (!isObject(turn) || (turn.role !== "user" && turn.role !== "model")) {
      skipped.push({ file: ctx.file, reason: `history turn ${i + 1} has no user or model role` });
      return;
    }
    // Tool calls and results are parts without text; thoughts are left out. Current builds merge consecutive user
    // turns, so the session context (or the IDE's) can be a part of the first prompt's turn: those parts go.
    const parts = Array.isArray(turn.parts) ? turn.parts : [];
    const said = contentText(
      turn.role === "user"
        ? parts.filter((p) => !(isObject(p) && typeof p.text === "string" && isInjected(p.text)))
        : parts,
    );
    const text = turn.role === "user" ? promptText(said) : i === 1 && said === CONTEXT_ACK ? "" : said;
    if (text === "") return;
    const role = turn.role === "user" ? "user" : "assistant";
    const hash = turnHash(role, text);
    if (inChats.has(hash) || seen.has(hash)) {
      seen.add(hash);
      return;
    }
    messages.push({ key: `${i}:${hash}`, role, content: text, sendAt: base + BigInt(i) * MS });
  });
  const name = basename(ctx.file);
  const tag = name === "checkpoint.json" ? undefined : decodeTag(name.slice("checkpoint-".length, -".json".length));
  const first = tag === undefined ? messages.find((m) => m.role === "user") : undefined;
  const named = `checkpoint-${basename(project)}${tag === undefined ? "" : `-${tag}`}`;
  // Tags are typed: two that differ only in characters outside the session-id rules stay two sessions. A checkpoint
  // first read before that (its state has no session) keeps the id it was given, so its turns are not imported again.
  const id =
    typeof ctx.prior.session === "string"
      ? ctx.prior.session
      : ctx.prior.base !== undefined
        ? importedSessionId("gem", named)
        : importedSessionId("gem", named, { distinct: true });
  return {
    sessions: [
      {
        id,
        title: tag ?? (first ? titleFrom(first.content) : undefined),
        titleIsFallback: tag === undefined,
        project: projectRoot(project) ?? basename(project),
        messages,
      },
    ],
    skipped,
    state: { base: String(base), session: id, ...(seen.size > 0 && { seen: [...seen] }) },
  };
}

const turnHash = (role: string, text: string) => shortHash(`${role}\0${text}`);

/** The tag as the person typed it: the CLI writes it percent-encoded (older builds wrote it raw). */
function decodeTag(tag: string): string {
  try {
    return decodeURIComponent(tag);
  } catch {
    return tag;
  }
}

/** The project folder newer releases record in tmp/<project>/.project_root. */
function projectRoot(folder: string): string | undefined {
  const file = join(folder, ".project_root");
  if (!existsSync(file)) return undefined;
  try {
    const root = readFileSync(file, "utf8").trim();
    return root === "" || root.includes("\n") ? undefined : root;
  } catch {
    return undefined;
  }
}

// Gemini CLI chats: ~/.gemini/tmp/<projectId>/chats/session-<time>-<id8>.jsonl ($GEMINI_CLI_HOME moves ~), sub-agent
// chats in chats/<parentSessionId>/<id>.jsonl, legacy session-*.json (one record). The JSONL is replayed as the CLI
// does: message records upsert by id, {"$set":{…}} merges metadata, {"$rewindTo": id} drops that message and
// everything after it (an unknown id clears the list). A `messages` list in $set is the model's context rewritten
// (a compression's summary in place of the turns it covers, bootstrapped turns on resume): not a rewind, and not
// the conversation, so it neither removes nor adds messages. /chat save checkpoints: gemini-checkpoint.ts.
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { importedSessionId } from "../../shared/import-id.ts";
import { recordTime } from "../record-time.ts";
import { NotThisFormatError } from "../import-types.ts";
import type { FileRead, ImportedMessage, Problem, ReadContext, Source } from "../import-types.ts";
import { isObject, jsonlLines, readTextLimited, tryJson } from "../read-lines.ts";
import { homeOf, listFiles, titleFrom } from "../source-files.ts";
import { isCheckpoint, readCheckpoint } from "./gemini-checkpoint.ts";
import { contentText, userText } from "./gemini-text.ts";

const PREFIX = "gem";
const MAX_JSON_FILE = 512 * 1024 * 1024;

export const gemini: Source = {
  name: "gemini",
  prefix: PREFIX,
  defaultPaths: (env) => [join(env.GEMINI_CLI_HOME || homeOf(env), ".gemini", "tmp")],
  files: (path) => listFiles(path, (name, full) => isChat(name, full) || isCheckpoint(full)),
  // Rewinds and upserts refer to earlier lines: a changed chat is replayed whole.
  appendOnly: () => false,
  read: (ctx) => (isCheckpoint(ctx.file) ? readCheckpoint(ctx, chatTurns) : readChat(ctx)),
};

function isChat(name: string, full: string): boolean {
  if (!full.split("/").includes("chats")) return false;
  // A resumed legacy chat is migrated to a .jsonl beside it, which then holds the whole session.
  return name.endsWith(".jsonl") || (name.startsWith("session-") && name.endsWith(".json") && !existsSync(`${full}l`));
}

/** The turns of every chat under `chats` (a project's chats/ folder); a chat that cannot be read has none. */
function chatTurns(chats: string): ImportedMessage[] {
  if (!existsSync(chats)) return [];
  return listFiles(chats, isChat).flatMap((file) => {
    try {
      return readChat({ file, offset: 0, state: {}, prior: {} }).sessions.flatMap((s) => s.messages);
    } catch {
      return [];
    }
  });
}

type Rec = Record<string, unknown>;

function readChat(ctx: ReadContext): FileRead {
  const skipped: Problem[] = [];
  let metadata: Rec = {};
  const messages = new Map<string, Rec>();
  if (ctx.file.endsWith(".json")) {
    const doc = tryJson(readTextLimited(ctx.file, MAX_JSON_FILE, statSync(ctx.file).size));
    if (!isObject(doc) || !Array.isArray(doc.messages))
      throw new NotThisFormatError({ file: ctx.file, expected: "a Gemini CLI chat", because: "no messages array" });
    metadata = doc;
    doc.messages.forEach((m, i) =>
      isObject(m) && typeof m.id === "string"
        ? messages.set(m.id, m)
        : skipped.push({ file: ctx.file, reason: `message ${i + 1} has no id` }),
    );
  } else {
    let records = 0;
    let lines = 0;
    for (const l of jsonlLines(ctx.file, 0, 1, false, ctx.onRead)) {
      if (l.text.trim() === "") continue;
      lines++;
      const r = tryJson(l.text);
      if (!isObject(r)) {
        skipped.push({ file: ctx.file, line: l.line, reason: "not valid JSON" });
        continue;
      }
      // The CLI's own tests, in its order: a message is any record with an id, metadata needs the project hash.
      if (typeof r.$rewindTo === "string") {
        const ids = [...messages.keys()];
        const at = ids.indexOf(r.$rewindTo);
        if (at < 0) messages.clear();
        else for (const id of ids.slice(at)) messages.delete(id);
      } else if (typeof r.id === "string") messages.set(r.id, r);
      else if (isObject(r.$set)) {
        const { messages: _context, ...set } = r.$set;
        metadata = { ...metadata, ...set };
      } else if (typeof r.sessionId === "string" && typeof r.projectHash === "string") metadata = { ...metadata, ...r };
      else {
        skipped.push({ file: ctx.file, line: l.line, reason: "not a chat record" });
        continue;
      }
      records++;
    }
    // The CLI loads a chat only when it names its session and project; other JSONL (a memvoy export's ids) does not.
    if (lines > 0 && (records === 0 || typeof metadata.sessionId !== "string"))
      throw new NotThisFormatError({
        file: ctx.file,
        expected: "a Gemini CLI chat",
        because: records === 0 ? "no line is a chat record" : "no metadata line names the session",
      });
  }
  const out: ImportedMessage[] = [];
  for (const m of messages.values()) {
    if (m.type !== "user" && m.type !== "gemini") continue; // info, error, warning: not conversation
    const text = m.type === "user" ? userText(m) : contentText(m.content);
    if (text === "") continue;
    const at = typeof m.timestamp === "string" ? recordTime(m.timestamp) : undefined;
    if (at === undefined) {
      skipped.push({ file: ctx.file, reason: `message ${String(m.id)} has no valid timestamp` });
      continue;
    }
    out.push({ key: String(m.id), role: m.type === "user" ? "user" : "assistant", content: text, sendAt: at });
  }
  const own = typeof metadata.sessionId === "string" ? metadata.sessionId : basename(ctx.file).replace(/\.jsonl?$/, "");
  // A sub-agent's chat lives in chats/<parentSessionId>/.
  const folder = basename(dirname(ctx.file));
  const parent = folder !== "chats" && metadata.kind !== "main" ? importedSessionId(PREFIX, folder) : undefined;
  const summary =
    typeof metadata.summary === "string" && metadata.summary.trim() !== "" ? metadata.summary.trim() : undefined;
  const first = out.find((m) => m.role === "user");
  const dirs = Array.isArray(metadata.directories)
    ? metadata.directories.filter((d): d is string => typeof d === "string")
    : [];
  return {
    sessions: [
      {
        id: importedSessionId(PREFIX, own),
        title: summary ?? (first ? titleFrom(first.content) : undefined),
        titleIsFallback: summary === undefined,
        project:
          dirs[0] ??
          projectRoot(ctx.file) ??
          (typeof metadata.projectHash === "string" ? metadata.projectHash : undefined),
        parent,
        messages: out,
        complete: true,
      },
    ],
    skipped,
  };
}

/** The project folder newer releases record beside the chats (tmp/<project>/.project_root); a main chat names none. */
function projectRoot(file: string): string | undefined {
  let dir = dirname(file);
  while (basename(dir) !== "chats") {
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
  try {
    const root = readFileSync(join(dirname(dir), ".project_root"), "utf8").trim();
    return root === "" || root.includes("\n") ? undefined : root;
  } catch {
    return undefined;
  }
}

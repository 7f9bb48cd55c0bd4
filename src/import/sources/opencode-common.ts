// What the opencode database and legacy storage readers share: where the databases are, messages from their text parts,
// sessions with their titles.
import { join } from "node:path";
import { dirEntries } from "../../shared/dir-entries.ts";
import { importedSessionId } from "../../shared/import-id.ts";
import type { ImportedMessage, ImportedSession } from "../import-types.ts";
import { isObject } from "../read-lines.ts";
import { titleFrom } from "../source-files.ts";

export const PREFIX = "oc";

export type Rec = Record<string, unknown>;

/**
 * The databases in opencode's data folder: opencode.db, which its latest and beta releases use, and
 * opencode-<channel>.db, which builds of any other channel (dev, local, a preview) use instead.
 */
export function databasesIn(dir: string): string[] {
  return dirEntries(dir)
    .filter((e) => e.isFile() && DATABASE.test(e.name))
    .map((e) => e.name)
    .sort()
    .map((name) => join(dir, name));
}

const DATABASE = /^opencode(?:-[A-Za-z0-9._-]+)?\.db$/;

export interface Found {
  msg: ImportedMessage;
  /** False for an assistant message without a completion time: it is still being written. */
  done: boolean;
}

/** Only the last message of a session can still be in progress; an unfinished one followed by others was abandoned. */
export const ready = (list: Found[]) => list.filter((x, i) => x.done || i < list.length - 1).map((x) => x.msg);

export const isDone = (role: unknown, time: unknown) =>
  role !== "assistant" || (isObject(time) && typeof time.completed === "number");

/** The text of a part: `text` parts that were typed or answered (synthetic and ignored ones are injected). */
export function partText(d: Rec): string | undefined {
  if (d.type !== "text" || typeof d.text !== "string" || d.synthetic === true || d.ignored === true) return undefined;
  const t = d.text.trim();
  return t === "" ? undefined : t;
}

/** A user or assistant message with text; the summary compaction writes (the conversation retold) is left out. */
export function toMessage(
  id: string,
  d: Rec,
  createdMs: number,
  texts: string[] | undefined,
): ImportedMessage | undefined {
  const role = d.role;
  if ((role !== "user" && role !== "assistant") || !texts || texts.length === 0 || !Number.isFinite(createdMs))
    return undefined;
  if (role === "assistant" && d.summary === true) return undefined;
  return { key: id, role, content: texts.join("\n\n"), sendAt: BigInt(Math.round(createdMs)) * 1_000_000n };
}

/** The title opencode gives a session until it names one ("New session - <ISO time>", "Child session - …"). */
const PLACEHOLDER_TITLE = /^(?:New [Ss]ession|Child session) - \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/;

export function toSession(
  id: string,
  title: unknown,
  directory: unknown,
  parent: unknown,
  messages: ImportedMessage[],
  whole = true,
): ImportedSession {
  const own =
    typeof title === "string" && title.trim() !== "" && !PLACEHOLDER_TITLE.test(title.trim())
      ? title.trim()
      : undefined;
  const first = whole ? messages.find((m) => m.role === "user") : undefined;
  return {
    id: importedSessionId(PREFIX, id),
    title: own ?? (first ? titleFrom(first.content) : undefined),
    titleIsFallback: own === undefined,
    project: typeof directory === "string" && directory !== "" ? directory : undefined,
    parent: typeof parent === "string" && parent !== "" ? importedSessionId(PREFIX, parent) : undefined,
    messages,
  };
}

// Codex's thread names: $CODEX_HOME/session_index.jsonl, one {id, thread_name, updated_at} a line, append-only (the
// latest line for an id wins), found from a rollout's path (<home>/sessions/YYYY/MM/DD/…, <home>/archived_sessions/…).
import { statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { isObject, readTextLimited, tryJson } from "../read-lines.ts";

const INDEX = "session_index.jsonl";
const MAX_INDEX = 256 * 1024 * 1024;

/** The index last read, kept while its size and mtime stay the same (an import reads it once per pass, not per rollout). */
let last: { file: string; size: number; mtimeMs: number; names: Map<string, string> } | undefined;

/** The thread's latest name in the index of the Codex home the rollout lies in; undefined when it has none. */
export function indexedThreadName(rollout: string, id: string): string | undefined {
  const file = indexOf(rollout);
  if (file === undefined) return undefined;
  const st = statSync(file, { throwIfNoEntry: false });
  if (!st?.isFile()) return undefined;
  if (last?.file !== file || last.size !== st.size || last.mtimeMs !== st.mtimeMs) {
    let names: Map<string, string>;
    try {
      names = namesIn(readTextLimited(file, MAX_INDEX, st.size));
    } catch {
      return undefined; // an unreadable index costs the titles, not the conversations
    }
    last = { file, size: st.size, mtimeMs: st.mtimeMs, names };
  }
  return last.names.get(id);
}

/** A thread name as one line: Codex trims it; runs of white space become one space. */
export const cleanThreadName = (name: string): string => name.replace(/\s+/g, " ").trim();

function namesIn(text: string): Map<string, string> {
  const names = new Map<string, string>();
  for (const line of text.split("\n")) {
    const e = tryJson(line);
    if (!isObject(e) || typeof e.id !== "string" || typeof e.thread_name !== "string") continue;
    const name = cleanThreadName(e.thread_name);
    if (name !== "") names.set(e.id, name);
  }
  return names;
}

/** <home>/session_index.jsonl for a rollout under <home>/sessions or <home>/archived_sessions; else undefined. */
function indexOf(rollout: string): string | undefined {
  const home = codexHomeOf(rollout);
  return home === undefined ? undefined : join(home, INDEX);
}

/** The Codex home a rollout lies in (<home>/sessions/YYYY/MM/DD/…, <home>/archived_sessions/…); else undefined. */
export function codexHomeOf(rollout: string): string | undefined {
  let dir = dirname(rollout);
  for (;;) {
    const name = basename(dir);
    if (name === "sessions" || name === "archived_sessions") return dirname(dir);
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

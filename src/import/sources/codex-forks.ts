// Codex forks: a forked (or spawned) thread's rollout starts with its parent's rollout lines, copied after its own
// session_meta and re-stamped to the fork's time. They are told by comparing with the parent's rollout on disk.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { dirEntries } from "../../shared/dir-entries.ts";
import { isObject, tryJson, wholeLines } from "../read-lines.ts";
import { codexHomeOf } from "./codex-names.ts";

/** Rollout files by thread id, per Codex home; listed again when a thread is not found, or its file moved (archived). */
const listed = new Map<string, Map<string, string>>();

/**
 * The parent thread's rollout lines as comparable keys (lineKey), in order; undefined when its rollout is not found
 * in the Codex home the fork lies in (or beside the fork), or cannot be read.
 */
export async function parentLines(fork: string, parentId: string): Promise<number[] | undefined> {
  const file = rolloutOf(fork, parentId);
  if (file === undefined) return undefined;
  try {
    const keys: number[] = [];
    // A parent .zst cut short still tells the copies of the lines it holds.
    for await (const l of wholeLines(file, () => {})) {
      const r = tryJson(l.text);
      if (isObject(r)) keys.push(lineKey(r));
    }
    return keys;
  } catch {
    return undefined; // an unreadable parent leaves the fork's copies where they are
  }
}

/** A rollout line without its time: a copy is the parent's line with only the timestamp changed. */
export const lineKey = (r: Record<string, unknown>): number =>
  Number(BigInt.asUintN(52, BigInt(Bun.hash(JSON.stringify([r.type, r.payload ?? r])))));

function rolloutOf(fork: string, id: string): string | undefined {
  const roots = homeRoots(fork);
  const home = roots.join("\0");
  const known = listed.get(home)?.get(id);
  if (known !== undefined && existsSync(known)) return known;
  const byId = new Map<string, string>();
  for (const root of roots) walk(root, byId);
  listed.set(home, byId);
  return byId.get(id);
}

/** sessions/ and archived_sessions/ of the Codex home a rollout lies in; else the rollout's own folder. */
function homeRoots(rollout: string): string[] {
  const home = codexHomeOf(rollout);
  return home === undefined ? [dirname(rollout)] : [join(home, "sessions"), join(home, "archived_sessions")];
}

const ROLLOUT = /^rollout-.*-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl(\.zst)?$/i;

function walk(dir: string, byId: Map<string, string>): void {
  for (const e of dirEntries(dir)) {
    const full = join(dir, e.name);
    if (e.isDirectory()) walk(full, byId);
    else {
      const m = ROLLOUT.exec(e.name);
      // The plain file wins over its compressed copy.
      if (m && (!m[2] || !byId.has(m[1]!))) byId.set(m[1]!, full);
    }
  }
}

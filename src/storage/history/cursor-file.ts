// .summary_cursor on disk: the time of the last summarized message as `YYYY-MM-DD HH:MM:SS` (UTC).
import { rmSync } from "node:fs";
import { stageFileAtomic, writeFileAtomic, type StagedFile } from "../../shared/atomic-write.ts";
import { NS_PER_SEC } from "../../shared/time.ts";
import { readText } from "./file-probe.ts";

const CURSOR = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

export type CursorFile = { state: "missing" } | { state: "invalid"; text: string } | { state: "ok"; text: string; ns: bigint };

/** The cursor, read as UTC. */
export function readCursorFile(path: string): CursorFile {
  const raw = readText(path);
  if (raw === undefined) return { state: "missing" };
  const text = raw.trim();
  const m = CURSOR.exec(text);
  if (!m) return { state: "invalid", text };
  const ms = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
  if (!Number.isFinite(ms)) return { state: "invalid", text };
  return { state: "ok", text, ns: BigInt(ms / 1000) * NS_PER_SEC };
}

export function stageCursor(path: string, text: string): StagedFile {
  return stageFileAtomic(path, text);
}

export function writeCursorFile(path: string, text: string): void {
  writeFileAtomic(path, text);
}

export function removeCursorFile(path: string): void {
  rmSync(path, { force: true });
}

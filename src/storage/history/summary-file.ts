// summary.json on disk: read as a JSON object (lenient; the summary schema is checked by the caller, which
// tolerates Agenvoy files), the sha256 of its bytes, staged atomic writes, the mtime gate, moving aside.
import { renameSync, rmSync, utimesSync } from "node:fs";
import { stageFileAtomic, type StagedFile } from "../../shared/atomic-write.ts";
import { mtimeNs, readText } from "./file-probe.ts";

export type SummaryJson =
  | { state: "missing" }
  | { state: "corrupt"; detail: string }
  | {
      state: "ok";
      /** The parsed top-level object, not yet checked against the summary schema. */
      raw: Record<string, unknown>;
      /** sha256 of the file's bytes. */
      sha: string;
    };

export function sha256(text: string): string {
  return new Bun.CryptoHasher("sha256").update(text).digest("hex");
}

export function readSummaryJson(path: string): SummaryJson {
  const text = readText(path);
  return text === undefined ? { state: "missing" } : parseSummaryJson(text);
}

/** summary.json's text (as the shared archive holds it) read as readSummaryJson reads the file. */
export function parseSummaryJson(text: string): SummaryJson {
  let raw: unknown;
  try {
    // A leading byte order mark (a file saved by a Windows editor) is no part of the JSON.
    raw = text.trim() === "" ? {} : JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    return { state: "corrupt", detail: "not valid JSON" };
  }
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return { state: "corrupt", detail: "not a JSON object" };
  return { state: "ok", raw: raw as Record<string, unknown>, sha: sha256(text) };
}

/** Stage summary.json's new text (nothing changes until commit()). */
export function stageSummaryText(path: string, text: string): { staged: StagedFile; sha: string } {
  return { staged: stageFileAtomic(path, text), sha: sha256(text) };
}

/** Rename an unreadable summary.json to `aside`, so that it is kept but no longer read. */
export function moveSummaryAside(path: string, aside: string): void {
  renameSync(path, aside);
}

export function removeSummaryFile(path: string): boolean {
  const existed = mtimeNs(path) !== undefined;
  rmSync(path, { force: true });
  return existed;
}

/** Set summary.json's mtime (the gate Generate's due check compares with history.json); absent files are left absent. */
export function setSummaryMtime(path: string, ms: number): void {
  if (mtimeNs(path) === undefined) return;
  const t = new Date(ms);
  utimesSync(path, t, t);
}

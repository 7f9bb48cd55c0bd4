// summary.json and .summary_cursor on disk: lenient reading (Agenvoy files included), staged atomic writes
// of a summary that passed the strict schema, and the cursor's `YYYY-MM-DD HH:MM:SS` text in local time
// (Agenvoy's convention), rounded down to the second. The exact position lives in SQLite (summary_runs).
import { readFileSync } from "node:fs";
import * as v from "valibot";
import { stageFileAtomic, type StagedFile } from "../../shared/atomic-write.ts";
import { NS_PER_SEC, nsToLocalSeconds, type Nanos } from "../../shared/time.ts";
import { LEGACY_KEYS, LooseSummarySchema, assertValidSummary } from "./summary-schema.ts";
import { applySummaryRules } from "./summary-rules.ts";
import { emptySummary, summaryText, type Summary } from "./summary-types.ts";

export type SummaryFile =
  | { state: "missing" }
  | { state: "corrupt"; detail: string }
  | {
      state: "ok";
      /** The content under the summary rules (legacy markers rewritten, limits applied). */
      summary: Summary;
      /** Keys of the pre-v0.32.7 format, kept verbatim so the next merge can fold them in. */
      legacy: Record<string, unknown>;
      /** sha256 of the file's bytes. */
      sha: string;
    };

export function sha256(text: string): string {
  return new Bun.CryptoHasher("sha256").update(text).digest("hex");
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

export function readSummaryFile(path: string): SummaryFile {
  const text = readText(path);
  if (text === undefined) return { state: "missing" };
  let raw: unknown;
  try {
    raw = text.trim() === "" ? {} : JSON.parse(text);
  } catch {
    return { state: "corrupt", detail: "not valid JSON" };
  }
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return { state: "corrupt", detail: "not a JSON object" };
  const parsed = v.safeParse(LooseSummarySchema, raw);
  if (!parsed.success) return { state: "corrupt", detail: `${v.getDotPath(parsed.issues[0]!) ?? "top level"}: ${parsed.issues[0]!.message}` };
  const { summary } = applySummaryRules(parsed.output, emptySummary());
  const legacy: Record<string, unknown> = {};
  for (const k of LEGACY_KEYS) if (k in raw) legacy[k] = (raw as Record<string, unknown>)[k];
  return { state: "ok", summary, legacy, sha: sha256(text) };
}

/** Validate, then stage summary.json (nothing changes until commit()). */
export function stageSummary(path: string, summary: Summary): { staged: StagedFile; sha: string } {
  const text = summaryText(assertValidSummary(summary));
  return { staged: stageFileAtomic(path, text), sha: sha256(text) };
}

const CURSOR = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

export type CursorFile = { state: "missing" } | { state: "invalid"; text: string } | { state: "ok"; text: string; ns: bigint };

/** The cursor text for a message time: local time, rounded down to the second (as Agenvoy writes it). */
export function cursorText(ns: Nanos): string {
  return nsToLocalSeconds(ns);
}

/** The start of the cursor's second (UTC ns), reading the text in local time; undefined when it is no time. */
export function parseCursorText(text: string): Nanos | undefined {
  const m = CURSOR.exec(text);
  if (!m) return undefined;
  const [y, mo, d, h, mi, se] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const date = new Date(y, mo - 1, d, h, mi, se);
  const ms = date.getTime();
  if (!Number.isFinite(ms) || date.getMonth() !== mo - 1 || date.getDate() !== d) return undefined;
  return BigInt(Math.floor(ms / 1000)) * NS_PER_SEC;
}

/** The cursor, read in local time. */
export function readCursorFile(path: string): CursorFile {
  const raw = readText(path);
  if (raw === undefined) return { state: "missing" };
  const text = raw.trim();
  const ns = parseCursorText(text);
  return ns === undefined ? { state: "invalid", text } : { state: "ok", text, ns };
}

export function stageCursor(path: string, text: string): StagedFile {
  return stageFileAtomic(path, text);
}

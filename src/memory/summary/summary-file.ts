// summary.json and .summary_cursor on disk: lenient reading (Agenvoy files included), staged atomic writes
// of a summary that passed the strict schema, and the cursor's `YYYY-MM-DD HH:MM:SS` (UTC) text.
import { readFileSync } from "node:fs";
import * as v from "valibot";
import { stageFileAtomic, type StagedFile } from "../../shared/atomic-write.ts";
import { NS_PER_SEC } from "../../shared/time.ts";
import { LEGACY_KEYS, LooseSummarySchema, assertValidSummary } from "./summary-schema.ts";
import { applySummaryRules } from "./summary-rules.ts";
import { emptySummary, summaryText, type Summary } from "./summary-types.ts";
import { describeIssues } from "../../shared/schema-issues.ts";

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
  if (!parsed.success) return { state: "corrupt", detail: describeIssues(parsed.issues, { topLevel: "top level" }) };
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

// valibot checks for error-memory input (library and CLI alike); nothing is written before they pass.
import * as v from "valibot";
import { namedError } from "../../shared/errors.ts";
import { OUTCOMES } from "./error-record.ts";
import { describeIssueFacts, issueFacts, type IssueFact } from "../../shared/schema-issues.ts";
import type { ErrorRecordText } from "../../shared/error-record-text.ts";

/** Input to record, search or list error memory that cannot be accepted; `what` names the input ("error record"). */
export const InvalidErrorInputError = namedError<
  | { what: string; problem: "invalid"; issues: IssueFact[] }
  | { what: string; problem: "keyword-too-long"; keyword: string; maxChars: number }
  | { what: string; problem: "too-many-keywords"; count: number; max: number }
>("InvalidErrorInputError", "input", (d) => {
  switch (d.problem) {
    case "invalid":
      return `${d.what}: ${describeIssueFacts(d.issues)}`;
    case "keyword-too-long":
      return `${d.what}: keyword ${JSON.stringify(d.keyword.slice(0, 80))} must be at most ${d.maxChars} characters on one line`;
    case "too-many-keywords":
      return `${d.what}: at most ${d.max} keywords (got ${d.count})`;
  }
});
export type InvalidErrorInputError = InstanceType<typeof InvalidErrorInputError>;

export const MAX_TEXT_BYTES = 64 * 1024;
export const MAX_KEYWORDS = 32;
export const MAX_KEYWORD_CHARS = 64;
export const MAX_TOOL_CHARS = 128;
const MAX_LIMIT = 100;
/** The most ranked records a lookup skips (offset): its candidate pool grows with offset + limit. */
export const MAX_SEARCH_OFFSET = 1000;
/** A list's largest page (as history --last takes it); past a whole number SQLite binds, it failed as a mismatch. */
export const MAX_LIST_LIMIT = 1_000_000;

/**
 * Error-memory text (error, fix, cause, a lookup's error) as it is checked, emptiness aside. The maxLength (UTF-16
 * units, never fewer than the UTF-8 bytes) is what a JSON Schema shows of the byte limit.
 */
export const errorText = (what: string) =>
  v.pipe(
    v.string(`${what} must be text`),
    v.maxLength(MAX_TEXT_BYTES, `${what} is over ${MAX_TEXT_BYTES / 1024} KiB`),
    v.check((s) => !s.includes("\0"), `${what} contains a NUL character`),
    v.check((s) => s.isWellFormed(), `${what} is not valid Unicode (unpaired surrogate)`),
    v.check((s) => Buffer.byteLength(s) <= MAX_TEXT_BYTES, `${what} is over ${MAX_TEXT_BYTES / 1024} KiB`),
  );

const text = (what: string) =>
  v.pipe(
    v.string(`${what} must be text`),
    v.check((s) => s.trim() !== "", `${what} is empty`),
    errorText(what),
  );

const TOOL_NAME = `tool must be a name of at most ${MAX_TOOL_CHARS} characters on one line`;
/** A tool name, trimmed: empty is for the caller to refuse (or to read as "none given"). */
export const toolText = v.pipe(
  v.string("tool must be text"),
  v.trim(),
  v.maxLength(MAX_TOOL_CHARS, TOOL_NAME),
  v.check((s) => !/[\u0000-\u001f\u007f]/.test(s), TOOL_NAME),
  v.check((s) => s.isWellFormed(), "tool is not valid Unicode (unpaired surrogate)"),
);

const toolName = v.pipe(
  toolText,
  v.check((s) => s !== "", "tool is empty"),
);

const outcome = v.picklist(OUTCOMES, "outcome must be resolved, failed or abandoned");

const RecordSchema = v.strictObject({
  tool: toolName,
  error: text("error"),
  fix: text("fix"),
  cause: v.optional(v.nullable(v.string("cause must be text"))),
  outcome: v.optional(outcome),
  keywords: v.optional(
    v.union([v.string(), v.array(v.string())], "keywords must be a list of words or one comma-separated string"),
  ),
});

export type RecordErrorInput = v.InferInput<typeof RecordSchema>;

export type NewErrorRecord = ErrorRecordText;

function fail(issues: [v.BaseIssue<unknown>, ...v.BaseIssue<unknown>[]], what: string): never {
  throw new InvalidErrorInputError({ what, problem: "invalid", issues: issueFacts(issues) });
}

/** Checks a record; `clean` is applied to each keyword before it is lower-cased. */
export function checkRecordInput(raw: unknown, clean?: (keyword: string) => string): NewErrorRecord {
  const r = v.safeParse(RecordSchema, raw);
  if (!r.success) fail(r.issues, "error record");
  const o = r.output;
  let cause: string | null = null;
  if (typeof o.cause === "string" && o.cause.trim() !== "") {
    const c = v.safeParse(text("cause"), o.cause);
    if (!c.success) fail(c.issues, "error record");
    cause = o.cause.trim();
  }
  return {
    tool: o.tool,
    error: o.error.trim(),
    cause,
    fix: o.fix.trim(),
    outcome: o.outcome ?? "resolved",
    keywords: normalizeKeywords(o.keywords, clean),
  };
}

/**
 * Trimmed, lower-cased, de-duplicated keywords; a string is split on commas. `clean` (redaction) runs before
 * lower-casing, since some secret formats are recognised by their upper-case prefix.
 */
export function normalizeKeywords(
  raw: string | string[] | undefined,
  clean: (k: string) => string = (k) => k,
): string[] {
  if (raw === undefined) return [];
  const parts = (typeof raw === "string" ? raw.split(",") : raw.flatMap((k) => k.split(","))).map((k) =>
    clean(k.trim()).toLowerCase(),
  );
  const out: string[] = [];
  for (const k of parts) {
    if (k === "" || out.includes(k)) continue;
    if (k.length > MAX_KEYWORD_CHARS || /[\u0000-\u001f\u007f]/.test(k)) {
      throw new InvalidErrorInputError({
        what: "error record",
        problem: "keyword-too-long",
        keyword: k.slice(0, 80),
        maxChars: MAX_KEYWORD_CHARS,
      });
    }
    out.push(k);
  }
  if (out.length > MAX_KEYWORDS)
    throw new InvalidErrorInputError({
      what: "error record",
      problem: "too-many-keywords",
      count: out.length,
      max: MAX_KEYWORDS,
    });
  return out;
}

const limit = v.pipe(
  v.number("limit must be a number"),
  v.integer(`limit must be a whole number from 1 to ${MAX_LIMIT}`),
  v.minValue(1, `limit must be a whole number from 1 to ${MAX_LIMIT}`),
  v.maxValue(MAX_LIMIT, `limit must be a whole number from 1 to ${MAX_LIMIT}`),
);

const offset = v.pipe(
  v.number("offset must be a number"),
  v.integer(`offset must be a whole number from 0 to ${MAX_SEARCH_OFFSET}`),
  v.minValue(0, `offset must be a whole number from 0 to ${MAX_SEARCH_OFFSET}`),
  v.maxValue(MAX_SEARCH_OFFSET, `offset must be a whole number from 0 to ${MAX_SEARCH_OFFSET}`),
);

const SearchSchema = v.strictObject({
  query: text("query"),
  tool: v.optional(toolName),
  limit: v.optional(limit),
  offset: v.optional(offset),
  otherTools: v.optional(v.boolean("otherTools must be true or false")),
  hit: v.optional(v.boolean("hit must be true or false")),
});

export type SearchErrorsInput = v.InferInput<typeof SearchSchema>;
export type SearchErrorsOptions = v.InferOutput<typeof SearchSchema> & { limit: number; offset: number };

export const DEFAULT_SEARCH_LIMIT = 5;

export function checkSearchInput(raw: unknown): SearchErrorsOptions {
  const r = v.safeParse(SearchSchema, raw);
  if (!r.success) fail(r.issues, "error search");
  return { ...r.output, limit: r.output.limit ?? DEFAULT_SEARCH_LIMIT, offset: r.output.offset ?? 0 };
}

const ListSchema = v.strictObject({
  tool: v.optional(toolName),
  outcome: v.optional(outcome),
  limit: v.optional(
    v.pipe(
      v.number("limit must be a number"),
      v.integer(`limit must be a whole number from 1 to ${MAX_LIST_LIMIT}`),
      v.minValue(1, `limit must be a whole number from 1 to ${MAX_LIST_LIMIT}`),
      v.maxValue(MAX_LIST_LIMIT, `limit must be a whole number from 1 to ${MAX_LIST_LIMIT}`),
    ),
  ),
});

export type ListErrorsInput = v.InferInput<typeof ListSchema>;

export function checkListInput(raw: unknown): v.InferOutput<typeof ListSchema> {
  const r = v.safeParse(ListSchema, raw ?? {});
  if (!r.success) fail(r.issues, "error list");
  return r.output;
}

// valibot schemas of the summary: a lenient one for model answers and files on disk (legacy included),
// and the strict one every summary.json must pass before it is written.
import * as v from "valibot";
import { namedError } from "../../shared/errors.ts";
import { MAX_DECISIONS, MAX_FIELD_CHARS, MAX_PAST_DISCUSSIONS, type Summary } from "./summary-types.ts";
import { describeIssueFacts, issueFacts, type IssueFact } from "../../shared/schema-issues.ts";

/** Text a model may give as a string, a list of strings or a number. */
const LooseText = v.optional(
  v.pipe(
    v.union([v.string(), v.array(v.string()), v.number(), v.null()]),
    v.transform((x) => (x === null ? "" : Array.isArray(x) ? x.join("; ") : String(x)).trim()),
  ),
  "",
);

/** A topic the model gave as bare text ("current_discussion": "the deploy plan") is that topic. */
const topicOnly = v.pipe(
  v.string(),
  v.transform((topic) => ({ topic: topic.trim() })),
);

const LoosePast = v.union([
  v.looseObject({
    topic: LooseText,
    description: LooseText,
    direction: LooseText,
    last_discussed: LooseText,
  }),
  v.pipe(
    topicOnly,
    v.transform((p) => ({ ...p, description: "", direction: "", last_discussed: "" })),
  ),
]);
const LooseCurrent = v.union([
  v.looseObject({
    topic: LooseText,
    description: LooseText,
    perspectives: LooseText,
    direction: LooseText,
  }),
  v.pipe(
    topicOnly,
    v.transform((c) => ({ ...c, description: "", perspectives: "", direction: "" })),
  ),
]);

/** A list given as null (as Agenvoy keeps a summary its model answered so) is a list not given. */
const orNull = <T extends v.GenericSchema>(list: T) =>
  v.optional(
    v.pipe(
      v.union([list, v.null()]),
      v.transform((x) => (x === null ? undefined : (x as v.InferOutput<T>))),
    ),
  );

export const LooseSummarySchema = v.looseObject({
  key_decisions: orNull(v.array(v.pipe(v.union([v.string(), v.number()]), v.transform(String)))),
  past_discussions: orNull(v.array(LoosePast)),
  current_discussion: v.optional(v.union([LooseCurrent, v.null()])),
});

export type LooseSummary = v.InferOutput<typeof LooseSummarySchema>;

export const SUMMARY_KEYS = ["key_decisions", "past_discussions", "current_discussion"] as const;
/** Keys of the summary format Agenvoy used before v0.32.7. */
export const LEGACY_KEYS = ["core_discussion", "discussion_log", "confirmed_needs", "current_conclusion"] as const;

const Text = v.pipe(v.string(), v.maxLength(MAX_FIELD_CHARS));

export const StrictSummarySchema = v.strictObject({
  key_decisions: v.pipe(
    v.array(v.pipe(Text, v.regex(/^(Do|Don't): \S/, "a decision starts with `Do: ` or `Don't: `"))),
    v.maxLength(MAX_DECISIONS),
  ),
  past_discussions: v.pipe(
    v.array(
      v.strictObject({
        topic: Text,
        description: Text,
        direction: Text,
        last_discussed: v.pipe(
          v.string(),
          v.regex(/^(\d{4}-\d{2}-\d{2} \d{2}:\d{2})?$/, "last_discussed is YYYY-MM-DD HH:mm"),
        ),
      }),
    ),
    v.maxLength(MAX_PAST_DISCUSSIONS),
  ),
  current_discussion: v.strictObject({ topic: Text, description: Text, perspectives: Text, direction: Text }),
});

/** Parse a lenient summary; undefined when it is not one (fewer than 2 of the 3 keys, wrong types). */
export function parseLooseSummary(value: unknown): LooseSummary | undefined {
  if (!value || typeof value !== "object" || Array.isArray(value)) return undefined;
  const present = SUMMARY_KEYS.filter((k) => k in value).length;
  // An answer wrapped in one key ({"summary": {...}}) is the summary inside it.
  const keys = Object.keys(value);
  if (present === 0 && keys.length === 1) return parseLooseSummary((value as Record<string, unknown>)[keys[0]!]);
  if (present < 2) return undefined;
  const r = v.safeParse(LooseSummarySchema, value);
  return r.success ? r.output : undefined;
}

/**
 * Why a value holding at least 2 of the summary's keys is no summary (a decision given as an object, a list as
 * text): the keys and the types, never the text. undefined when it does not hold the keys, or is a summary.
 */
export function looseSummaryProblem(value: unknown): string | undefined {
  if (!value || typeof value !== "object" || Array.isArray(value)) return undefined;
  const o = value as Record<string, unknown>;
  if (SUMMARY_KEYS.filter((k) => k in o).length < 2 || v.safeParse(LooseSummarySchema, o).success) return undefined;
  const problems: string[] = [];
  const list = (key: string, item: (x: unknown) => boolean, wanted: string) => {
    const x = o[key];
    if (x === undefined || x === null) return;
    if (!Array.isArray(x)) return problems.push(`${key} is ${typeOf(x)}, not a list`);
    const i = x.findIndex((e) => !item(e));
    if (i >= 0) problems.push(`${key} entry ${i + 1} is ${typeOf(x[i])}, not ${wanted}`);
  };
  list("key_decisions", (x) => typeof x === "string" || typeof x === "number", "text");
  list("past_discussions", (x) => typeof x === "string" || v.is(LoosePast, x), "a topic with text fields");
  const c = o.current_discussion;
  if (c !== undefined && c !== null && !v.is(LooseCurrent, c))
    problems.push(`current_discussion is ${typeOf(c)}, not a topic with text fields`);
  return problems.length > 0 ? problems.join("; ") : undefined;
}

/** A JSON value's kind in words ("an object", "a list", "text"), never the value itself. */
function typeOf(x: unknown): string {
  if (Array.isArray(x)) return "a list";
  if (x === null) return "null";
  if (typeof x === "object") return "an object";
  return typeof x === "string" ? "text" : `a ${typeof x}`;
}

/** A summary (from the model, after conversion) fails the strict summary.json schema. */
export const InvalidSummaryError = namedError<{ issues: IssueFact[] }>(
  "InvalidSummaryError",
  "runtime",
  (d) => `invalid summary: ${describeIssueFacts(d.issues)}`,
);
export type InvalidSummaryError = InstanceType<typeof InvalidSummaryError>;

/** Throws (naming the first problem) unless `s` is a valid summary.json. */
export function assertValidSummary(s: Summary): Summary {
  const r = v.safeParse(StrictSummarySchema, s);
  if (r.success) return r.output;
  throw new InvalidSummaryError({ issues: issueFacts(r.issues, { topLevel: "(top level)" }) });
}

// describeIssues: every validation issue, each with its path, in one line; used by config, wire and summary input.
import { expect, test } from "bun:test";
import * as v from "valibot";
import { toNewMessage } from "../../src/app/wire-input.ts";
import { validateConfig } from "../../src/config/load.ts";
import { checkRecordInput } from "../../src/memory/error-memory/error-input.ts";
import { assertValidSummary } from "../../src/memory/summary/summary-schema.ts";
import { describeIssues } from "../../src/shared/schema-issues.ts";

const Schema = v.strictObject({
  summary: v.strictObject({ model: v.string("expected string"), chunk_chars: v.number("expected number") }),
  http: v.strictObject({ port: v.pipe(v.number(), v.integer("expected a whole number")) }),
  tags: v.array(v.string("expected string")),
});

function issuesOf(raw: unknown) {
  const r = v.safeParse(Schema, raw);
  if (r.success) throw new Error("expected issues");
  return r.issues;
}

test("every issue is reported with its dotted path, in order", () => {
  const text = describeIssues(
    issuesOf({ summary: { model: 5, chunk_chars: "x" }, http: { port: 1.5 }, tags: ["a", 2] }),
  );
  expect(text).toBe(
    "summary.model: expected string; summary.chunk_chars: expected number; http.port: expected a whole number; tags.1: expected string",
  );
});

test("unknown keys, top-level issues and repeated texts", () => {
  const issues = issuesOf({
    summary: { model: "m", chunk_chars: 1, modle: "x" },
    http: { port: 1 },
    tags: [],
    extra: true,
  });
  expect(describeIssues(issues)).toBe("summary.modle: unknown field; extra: unknown field");
  expect(describeIssues(issues, { unknown: "unknown key" })).toBe("summary.modle: unknown key; extra: unknown key");
  const top = v.safeParse(v.string("expected text"), 1);
  expect(describeIssues(top.issues!)).toBe("expected text");
  expect(describeIssues(top.issues!, { topLevel: "(top level)" })).toBe("(top level): expected text");
  const twice = v.safeParse(
    v.pipe(v.number(), v.integer("a whole number from 1 to 9"), v.minValue(1, "a whole number from 1 to 9")),
    0.5,
  );
  expect(describeIssues(twice.issues!)).toBe("a whole number from 1 to 9");
});

test("the config file names every wrong key", () => {
  const err = (() => {
    try {
      validateConfig({ summary: { model: 5 }, limits: { max_history_byts: 1 } }, "/c.toml");
    } catch (e) {
      return e as Error;
    }
  })();
  expect(err?.message).toStartWith("config error in /c.toml: ");
  expect(err?.message).toContain("summary.model: ");
  expect(err?.message).toContain("limits.max_history_byts: unknown key");
  expect(err?.message).toContain("; ");
});

test("wire input, error-memory input and summaries name every problem", () => {
  expect(() => toNewMessage({ role: "robot", content: 5, extra: 1 }, "stdin line 3")).toThrow(
    /^stdin line 3: role must be user or assistant; content must be text; extra: unknown field$/,
  );
  expect(() => checkRecordInput({ tool: 5, error: "", bogus: 1 })).toThrow(
    /^error record: tool: .+; error: .+; bogus: unknown field$/,
  );
  expect(() =>
    assertValidSummary({ key_decisions: "x", past_discussions: [], current_discussion: 5 } as never),
  ).toThrow(/^invalid summary: key_decisions: .+; current_discussion: .+$/);
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { HomeMemory } from "../../src/app/memory-api.ts";
import { removeTempHomes } from "../fixture/home.ts";
import { errorHome } from "./error-home.ts";
import { SET_DISTRACTORS, SET_PAIRS, SET_RECORDS } from "./paraphrase-set.ts";

/**
 * Top-1 accuracy measured on the test part with the builtin embedder (bench/error-paraphrases.ts):
 * 0.44 (dev 0.50). The goal is 0.75, not reached; this floor guards against regressions.
 */
const TEST_TOP1_FLOOR = 0.4;

let api: HomeMemory;
const ids = new Map<string, string>();

beforeAll(async () => {
  api = errorHome().api;
  for (const { key, ...rec } of [...SET_RECORDS, ...SET_DISTRACTORS]) {
    const r = await api.recordError(rec);
    if (r.merged) throw new Error(`record ${key} merged into another`);
    ids.set(key, r.record.id);
  }
}, 60_000);
afterAll(() => {
  api.close();
  removeTempHomes();
});

describe("error recall across vocabulary (frozen paraphrase set)", () => {
  test("the set has at least 60 pairs over 12 tools among at least 200 distractors", () => {
    expect(SET_PAIRS.length).toBeGreaterThanOrEqual(60);
    expect(new Set(SET_PAIRS.map((p) => p.tool)).size).toBeGreaterThanOrEqual(12);
    expect(SET_DISTRACTORS.length).toBeGreaterThanOrEqual(200);
  });

  test(`the test part finds the right record first at least ${TEST_TOP1_FLOOR * 100}% of the time, never empty`, async () => {
    const pairs = SET_PAIRS.filter((p) => p.split === "test");
    let first = 0;
    let empty = 0;
    for (const p of pairs) {
      const r = await api.searchErrors({ query: p.query });
      if (r.hits[0]?.record.id === ids.get(p.expect)) first++;
      if (r.hits.length === 0) empty++;
    }
    expect(first / pairs.length).toBeGreaterThanOrEqual(TEST_TOP1_FLOOR);
    expect(empty).toBe(0);
  }, 60_000);
});

describe("a description in other words finds a small memory's record", () => {
  test('"the script could not be executed, access was refused" finds "Permission denied: ./deploy.sh" (fix chmod +x)', async () => {
    const small = errorHome().api;
    try {
      const target = await small.recordError({
        tool: "bash",
        error: "permission denied: ./deploy.sh",
        fix: "chmod +x deploy.sh",
      });
      await small.recordError({ tool: "bash", error: "jq: command not found", fix: "apt-get install -y jq" });
      await small.recordError({
        tool: "npm",
        error: "npm ERR! code ERESOLVE unable to resolve dependency tree",
        fix: "pin react and react-dom to the same major",
      });
      await small.recordError({
        tool: "sql",
        error: 'ERROR: duplicate key value violates unique constraint "processed_events_pkey"',
        fix: "catch the unique violation and answer 200",
      });
      const r = await small.searchErrors({ query: "the script could not be executed, access was refused" });
      expect(r.hits[0]?.record.id).toBe(target.record.id);
      expect(r.hits[0]?.record.fix).toContain("chmod +x");
    } finally {
      small.close();
    }
  }, 30_000);
});

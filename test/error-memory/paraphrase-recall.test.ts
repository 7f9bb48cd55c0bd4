import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { HomeMemory } from "../../src/app/memory-api.ts";
import { removeTempHomes } from "../fixture/home.ts";
import { errorHome } from "./error-home.ts";
import { SET_DISTRACTORS, SET_PAIRS, SET_RECORDS, type SetPair } from "./paraphrase-set.ts";
import { SET2_DISTRACTORS, SET2_PAIRS, SET2_RECORDS } from "./paraphrase-set-2.ts";
import { nonsenseQueries, UNRELATED_QUERIES } from "./unrelated-queries.ts";

/**
 * Top-1 accuracy measured on the test part with the builtin embedder (bench/error-paraphrases.ts):
 * 0.75 (dev 0.97), the goal.
 */
const TEST_TOP1_GOAL = 0.75;
/**
 * Top-1 on the held-out second set, never tuned on: 0.28 with the builtin embedder. A floor against
 * regressions; it says how far the first set's test figure is from words the ranking never saw.
 */
const HELD_OUT_TOP1_FLOOR = 0.27;
/**
 * Share of unrelated queries that return a record, measured 0.06 (everyday sentences only; no nonsense query), 0.16
 * before a query nearer an everyday reference sentence than any record returns nothing.
 */
const UNRELATED_CEILING = 0.08;

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

  test(`the test part finds the right record first at least ${TEST_TOP1_GOAL * 100}% of the time, never empty`, async () => {
    const { top1, empty } = await measure(SET_PAIRS.filter((p) => p.split === "test"));
    expect(top1).toBeGreaterThanOrEqual(TEST_TOP1_GOAL);
    expect(empty).toBe(0);
  }, 60_000);

  test('among all the records, "the script could not be executed, access was refused" finds "Permission denied: ./deploy.sh"', async () => {
    const r = await api.searchErrors({ query: "the script could not be executed, access was refused" });
    expect(r.hits[0]?.record.id).toBe(ids.get("bash-exec-perm")!);
    expect(r.hits[0]?.record.fix).toContain("chmod +x");
  });

  test("unrelated queries rarely return a record; nonsense never does", async () => {
    let answered = 0;
    for (const query of UNRELATED_QUERIES) if ((await api.searchErrors({ query })).hits.length > 0) answered++;
    expect(answered / UNRELATED_QUERIES.length).toBeLessThanOrEqual(UNRELATED_CEILING);
    for (const query of nonsenseQueries(30)) expect((await api.searchErrors({ query })).hits).toEqual([]);
  }, 60_000);

  test("an everyday sentence that shares a word with a record gets nothing; talk of errors is not everyday", async () => {
    // "match" is in a git record ("did not match any file(s)"); the sentence meets "Our team won the game on
    // Saturday." first.
    const r = await api.searchErrors({ query: "the football match ended in a draw" });
    expect(r).toMatchObject({ hits: [], notes: [] });
    // Beside "The build failed because a test timed out.", a reference sentence about work, which does not count;
    // and a query naming an error class (a timeout) or holding an identifier is never taken for everyday text.
    for (const query of ["the test timed out", "timed out", "container OOMKilled"])
      expect((await api.searchErrors({ query })).hits.length).toBeGreaterThan(0);
  });
});

async function measure(pairs: readonly SetPair[], memory = api, keys = ids): Promise<{ top1: number; empty: number }> {
  let first = 0;
  let empty = 0;
  for (const p of pairs) {
    const r = await memory.searchErrors({ query: p.query });
    if (r.hits[0]?.record.id === keys.get(p.expect)) first++;
    if (r.hits.length === 0) empty++;
  }
  return { top1: first / pairs.length, empty };
}

describe("error recall on the held-out paraphrase set", () => {
  test(`finds the right record first at least ${HELD_OUT_TOP1_FLOOR * 100}% of the time, never empty`, async () => {
    const held = errorHome().api;
    try {
      const keys = new Map<string, string>();
      for (const { key, ...rec } of [...SET2_RECORDS, ...SET2_DISTRACTORS]) {
        const r = await held.recordError(rec);
        if (r.merged) throw new Error(`record ${key} merged into another`);
        keys.set(key, r.record.id);
      }
      expect(SET2_PAIRS.length).toBeGreaterThanOrEqual(60);
      expect(SET2_DISTRACTORS.length).toBeGreaterThanOrEqual(200);
      const { top1, empty } = await measure(SET2_PAIRS, held, keys);
      expect(top1).toBeGreaterThanOrEqual(HELD_OUT_TOP1_FLOOR);
      expect(empty).toBe(0);
    } finally {
      held.close();
    }
  }, 90_000);
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

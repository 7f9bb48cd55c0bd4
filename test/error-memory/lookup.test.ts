import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { HomeMemory } from "../../src/app/memory-api.ts";
import { rankErrors } from "../../src/memory/error-memory/rank-errors.ts";
import { join } from "node:path";
import { openMemory } from "../../src/app/open-memory.ts";
import { removeTempHomes, tempHome } from "../fixture/home.ts";
import { errorHome, loadFixture } from "./error-home.ts";
import { PARAPHRASES, RECORDS } from "./fixture.ts";

let api: HomeMemory;
let ids: Map<string, string>;

beforeAll(async () => {
  api = errorHome().api;
  ids = await loadFixture(api);
}, 30_000);
afterAll(() => {
  api.close();
  removeTempHomes();
});

describe("error lookup over a realistic memory", () => {
  test("the fixture holds at least 50 records of at least 7 tools", () => {
    expect(api.listErrors({ limit: 1000 }).total).toBe(RECORDS.length);
    expect(RECORDS.length).toBeGreaterThanOrEqual(50);
    expect(new Set(RECORDS.map((r) => r.tool)).size).toBeGreaterThanOrEqual(7);
  }, 30_000);

  for (const p of PARAPHRASES) {
    test(`paraphrase finds its fix first (${p.expect}), with and without --tool`, async () => {
      const want = ids.get(p.expect)!;
      for (const tool of [undefined, p.tool]) {
        const r = await api.searchErrors({ query: p.query, tool });
        expect(r.hits[0]?.record.id).toBe(want);
      }
    });
  }

  test("--tool narrows the search to that tool", async () => {
    const query = "permission denied";
    const all = await api.searchErrors({ query, limit: 20 });
    const tools = new Set(all.hits.map((h) => h.record.tool));
    expect(tools.size).toBeGreaterThan(2);
    for (const tool of ["docker", "psql", "npm"]) {
      expect(tools.has(tool)).toBe(true);
      const narrowed = await api.searchErrors({ query, tool, limit: 20 });
      expect(narrowed.hits.length).toBeGreaterThan(0);
      expect(narrowed.hits.every((h) => h.record.tool === tool)).toBe(true);
    }
  }, 30_000);

  test("with other tools allowed, the same tool comes first", async () => {
    const plain = await api.searchErrors({ query: "permission denied", limit: 20 });
    expect(plain.hits[0]!.record.tool).not.toBe("npm");
    const r = await api.searchErrors({ query: "permission denied", tool: "npm", otherTools: true, limit: 20 });
    const tools = r.hits.map((h) => h.record.tool);
    const firstOther = tools.findIndex((t) => t !== "npm");
    expect(tools[0]).toBe("npm");
    expect(firstOther).toBeGreaterThan(0);
    expect(tools.slice(firstOther).every((t) => t !== "npm")).toBe(true);
    expect(new Set(tools.slice(firstOther)).size).toBeGreaterThan(1);
  }, 30_000);

  test("no hit gives an empty list, never a placeholder", async () => {
    for (const query of ["banana smoothie recipe with oat milk", "the quarterly revenue report is due on friday"]) {
      const r = await api.searchErrors({ query });
      expect(r.hits).toEqual([]);
    }
  }, 30_000);

  test("limit caps the hits; each hit carries its score and how it matched", async () => {
    const r = await api.searchErrors({ query: "connection refused", limit: 2 });
    expect(r.hits).toHaveLength(2);
    for (const h of r.hits) {
      expect(h.score).toBeGreaterThan(0);
      expect(h.score).toBeLessThanOrEqual(1);
      expect(h.matchedBy.length).toBeGreaterThan(0);
    }
  }, 30_000);
});

describe("keywords given to find a record by", () => {
  test("a query that is one of a record's keywords finds it, even when it reads as everyday words", async () => {
    const { api: mem } = errorHome();
    try {
      const { record } = await mem.recordError({
        tool: "terraform",
        error: "Error acquiring the state lock: ConditionalCheckFailedException",
        fix: "terraform force-unlock LOCK_ID",
        keywords: "dynamodb,state-lock,tf-locking",
      });
      await mem.recordError({ tool: "terraform", error: "Error: Invalid provider configuration", fix: "set region" });
      for (const query of ["tf-locking", "TF-Locking ", "state-lock"])
        expect((await mem.searchErrors({ query })).hits.map((h) => h.record.id)).toEqual([record.id]);
      // Words it merely shares with a keyword still go through the everyday check.
      expect((await mem.searchErrors({ query: "the football match ended in a draw" })).hits).toEqual([]);
    } finally {
      mem.close();
    }
  });
});

describe("rank order", () => {
  test("resolved before failed or abandoned, even when the failed record matches better", async () => {
    const { api: a } = errorHome();
    const failed = await a.recordError({
      tool: "git",
      error: "! [remote rejected] main -> main (protected branch hook declined)",
      fix: "tried git push --force; still declined",
      outcome: "failed",
    });
    const resolved = await a.recordError({
      tool: "git",
      error: "! [remote rejected] main -> main (pre-receive hook declined)",
      fix: "push a branch and open a pull request",
      outcome: "resolved",
    });
    const r = await a.searchErrors({ query: "! [remote rejected] main -> main (protected branch hook declined)" });
    expect(r.hits.map((h) => h.record.id)).toEqual([resolved.record.id, failed.record.id]);
    expect(r.hits[1]!.score).toBe(1);
    a.close();
  }, 30_000);

  test("rankErrors: same tool, then resolved, then relevance; weak candidates are cut", () => {
    const ranked = rankErrors(
      [
        { seq: 1n, tool: "npm", outcome: "resolved", keyword: 10, semantic: 0.9 },
        { seq: 2n, tool: "yarn", outcome: "failed", keyword: 8 },
        { seq: 3n, tool: "yarn", outcome: "resolved", keyword: 7 },
        { seq: 4n, tool: "YARN", outcome: "abandoned", keyword: 9, semantic: 0.8 },
        { seq: 5n, tool: "npm", outcome: "resolved", keyword: 0.5 },
        { seq: 6n, tool: "pip", outcome: "resolved", semantic: 0.6 },
        { seq: 7n, tool: "pip", outcome: "resolved", semantic: 0.95 },
      ],
      0.5,
      "yarn",
    );
    expect(ranked.map((r) => r.seq)).toEqual([3n, 4n, 2n, 1n, 7n]);
    expect(ranked.find((r) => r.seq === 1n)!.score).toBe(1);
    expect(ranked.map((r) => r.sameTool)).toEqual([true, true, true, false, false]);
    expect(ranked.find((r) => r.seq === 7n)!.matchedBy).toEqual(["semantic"]);
  }, 30_000);
});

test("records and searches made at once in one process: every vector is written, every search has its semantic half", async () => {
  const { api: busy } = errorHome();
  try {
    await loadFixture(busy);
    const calls: Promise<string[]>[] = [];
    for (let i = 0; i < 40; i++) {
      if (i % 2 === 0)
        calls.push(
          busy
            .recordError({ tool: "curl", error: `curl: (28) Operation timed out after ${i} ms`, fix: `retry ${i}` })
            .then((r) => r.notes),
        );
      calls.push(busy.searchErrors({ query: PARAPHRASES[i % PARAPHRASES.length]!.query }).then((r) => r.notes));
    }
    expect((await Promise.all(calls)).flat()).toEqual([]);
    expect((await busy.searchErrors({ query: "curl timed out" })).notEmbedded).toBe(0);
  } finally {
    busy.close();
  }
}, 60_000);

test("two processes recording at once: each record has its vector when the call returns, none waits for a catch-up", async () => {
  const home = tempHome("memvoy-errors-");
  const first = openMemory({ home, env: {}, drain: "off" });
  await first.recordError({ tool: "curl", error: "curl: (28) Operation timed out", fix: "retry" });
  first.close();
  // Each writes a fragment per record and compacts every 24: the two compact (and add) at once many times over.
  const child = (tag: string) =>
    Bun.spawn(["bun", join(import.meta.dir, "../fixture/error-recorder-main.ts"), home, tag, "120"], {
      stdout: "pipe",
      stderr: "pipe",
    });
  const runs = [child("left"), child("right")];
  const out = await Promise.all(
    runs.map(async (p) => ({
      code: await p.exited,
      stdout: await new Response(p.stdout).text(),
      stderr: await new Response(p.stderr).text(),
    })),
  );
  for (const r of out) {
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
  }
  const api = openMemory({ home, env: {}, drain: "off" });
  try {
    const { records, total } = api.listErrors({ limit: 1000 });
    expect(total).toBe(241);
    expect(records.filter((r) => !r.embedded).map((r) => r.error)).toEqual([]);
  } finally {
    api.close();
  }
}, 120_000);

/** A word of letters for `i` (error signatures read digits as any number). */
const letters = (i: number) =>
  `${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + (Math.floor(i / 26) % 26))}${String.fromCharCode(97 + (Math.floor(i / 676) % 26))}`;

test("records made while another process removes records (dropping the table's older versions) keep their vectors", async () => {
  const home = tempHome("memvoy-errors-");
  const api = openMemory({ home, env: {}, drain: "off" });
  try {
    const seed = async (i: number) =>
      (await api.recordError({ tool: "seed", error: `seed failure ${letters(i)}`, fix: "none" })).record.id;
    const stock: string[] = [];
    for (let i = 0; i < 150; i++) stock.push(await seed(i));
    // Four recorders: with two, a compaction reading a data file the removal just dropped was rare enough to pass.
    const recorders = ["busy", "busier", "busiest", "busiest-yet"].map((tag) =>
      Bun.spawn(["bun", join(import.meta.dir, "../fixture/error-recorder-main.ts"), home, tag, "200"], {
        stdout: "pipe",
        stderr: "pipe",
      }),
    );
    // Each removal drops every older version of the table, the one a recorder may be reading included.
    for (let i = 150; recorders.some((r) => r.exitCode === null); i++)
      await api.removeError(stock.pop() ?? (await seed(i)));
    for (const r of recorders) {
      const [code, stdout, stderr] = await Promise.all([
        r.exited,
        new Response(r.stdout).text(),
        new Response(r.stderr).text(),
      ]);
      expect(code, stderr).toBe(0);
      expect(JSON.parse(stdout)).toEqual([]);
    }
    const records = api.listErrors({ limit: 1000 }).records.filter((r) => r.tool !== "seed");
    expect(records).toHaveLength(800);
    expect(records.filter((r) => !r.embedded)).toEqual([]);
  } finally {
    api.close();
  }
}, 180_000);

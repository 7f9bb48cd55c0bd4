// A large import pass leaves the substring index to one build at its end (src/memory/imports/deferred-index.ts):
// the index is whole when the pass returns, holds what an inline pass writes, and searches find the same
// matches meanwhile; a pass killed before its end leaves the build to the daemon's upgrade.
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { importJsonlFiles } from "../../src/import/import-jsonl.ts";
import type { ImportProgress } from "../../src/import/import-report.ts";
import { BULK_IMPORT } from "../../src/memory/imports/deferred-index.ts";
import { trigramReady } from "../../src/storage/sqlite/substring-index.ts";
import type { HomeMemory } from "../../src/app/memory-api.ts";
import { openTemp, removeTempHomes, tempHome } from "../fixture/home.ts";

const DEFAULTS = { ...BULK_IMPORT };
afterEach(() => Object.assign(BULK_IMPORT, DEFAULTS));
afterAll(removeTempHomes);

const NOW = 1_790_000_000_000_000_000n;
const SESSIONS = 4;
const PER_SESSION = 60;

/** Text whose needles only a substring match finds: inside longer words, CJK runs, symbols. */
const content = (s: number, i: number) =>
  `note ${s}-${i}: the prefixquorbl${i % 7}suffix check ran, 数据库备份${i % 5} restored, see a->b::c${i % 3} && more`;

/** memvoy's own export format, SESSIONS sessions of PER_SESSION messages, one file. */
function exportFile(prefix = "bulk"): string {
  const lines: string[] = [];
  for (let s = 0; s < SESSIONS; s++) {
    lines.push(JSON.stringify({ type: "session", id: `${prefix}-${s}`, source: "claude-code", title: `session ${s}` }));
    for (let i = 0; i < PER_SESSION; i++)
      lines.push(
        JSON.stringify({
          type: "message",
          id: `${prefix}${s}x${String(i).padStart(4, "0")}`,
          session: `${prefix}-${s}`,
          role: i % 2 === 0 ? "user" : "assistant",
          content: content(s, i),
          sendAt: new Date(Date.UTC(2026, 5, 1, 0, s, i)).toISOString(),
        }),
      );
  }
  const file = join(tempHome("bulk-src-"), "export.jsonl");
  writeFileSync(file, lines.join("\n") + "\n");
  return file;
}

const QUERIES = ["quorbl3", "rbl5suf", "据库备份2", "库备", "->b::c1", "b::c2 &&"];

/** Ids of each query's hits, as keyword search ranks them. */
const hits = async (api: HomeMemory) => {
  const out: string[][] = [];
  for (const query of QUERIES)
    out.push((await api.search({ query, match: "keyword", limit: 200 })).hits.map((h) => h.message.id).sort());
  return out;
};

const openDb = (home: string) => new Database(join(home, ".store", "history.db"), { safeIntegers: true });

/** Messages the substring index holds a row for, and messages in all. */
function indexedRows(home: string): { indexed: number; messages: number; ready: boolean } {
  const db = openDb(home);
  try {
    const count = (sql: string) => Number((db.query(sql).get() as { n: bigint }).n);
    return {
      indexed: count("SELECT count(DISTINCT doc) AS n FROM messages_trigram_terms"),
      messages: count("SELECT count(*) AS n FROM messages"),
      ready: trigramReady(db),
    };
  } finally {
    db.close();
  }
}

describe("a large import pass defers the substring index", () => {
  test("built before the pass returns, with progress; it holds what an inline pass writes; searches match", async () => {
    const file = exportFile();
    const inline = openTemp({ now: () => NOW });
    const bulk = openTemp({ now: () => NOW });
    try {
      const small = await importJsonlFiles(inline.api, [file]);
      expect(small.messages.added).toBe(SESSIONS * PER_SESSION);
      BULK_IMPORT.after = 50;
      BULK_IMPORT.step = 32;
      const seen: ImportProgress[] = [];
      const big = await importJsonlFiles(bulk.api, [file], { onProgress: (p) => seen.push(p) });
      expect(big.messages.added).toBe(SESSIONS * PER_SESSION);
      expect(big.failed).toEqual([]);
      // The build ran in steps at the pass's end, up to every message.
      const indexing = seen.filter((p) => p.indexing);
      expect(indexing.length).toBeGreaterThan(2);
      expect(indexing.at(-1)!.indexing).toEqual({ done: SESSIONS * PER_SESSION, total: SESSIONS * PER_SESSION });
      for (const home of [inline.home, bulk.home])
        expect(indexedRows(home)).toEqual({
          indexed: SESSIONS * PER_SESSION,
          messages: SESSIONS * PER_SESSION,
          ready: true,
        });
      const expected = await hits(inline.api);
      expect(expected.every((ids) => ids.length > 0)).toBe(true);
      expect(await hits(bulk.api)).toEqual(expected);
      // A re-run adds nothing and leaves the index alone.
      const again = await importJsonlFiles(bulk.api, [file], { onProgress: (p) => seen.push(p) });
      expect(again.messages.added).toBe(0);
      expect(indexedRows(bulk.home).ready).toBe(true);
    } finally {
      inline.api.close();
      bulk.api.close();
    }
  });

  test("a small pass or a dry run writes the index as it goes: no build at the end", async () => {
    const file = exportFile();
    const { home, api } = openTemp({ now: () => NOW });
    try {
      // A dry run counted as writes would cross this threshold, defer, and build at its end.
      BULK_IMPORT.after = 50;
      const seen: ImportProgress[] = [];
      const dry = await importJsonlFiles(api, [file], { dryRun: true, onProgress: (p) => seen.push(p) });
      expect(dry.messages.added).toBe(SESSIONS * PER_SESSION);
      BULK_IMPORT.after = SESSIONS * PER_SESSION + 1;
      const r = await importJsonlFiles(api, [file], { onProgress: (p) => seen.push(p) });
      expect(r.messages.added).toBe(SESSIONS * PER_SESSION);
      expect(seen.filter((p) => p.indexing)).toEqual([]);
      expect(indexedRows(home)).toEqual({
        indexed: SESSIONS * PER_SESSION,
        messages: SESSIONS * PER_SESSION,
        ready: true,
      });
    } finally {
      api.close();
    }
  });

  /** A home whose last large pass died after its writes, before its end, and the same messages imported whole. */
  async function killedPass() {
    const reference = openTemp({ now: () => NOW });
    const killed = openTemp({ now: () => NOW });
    await importJsonlFiles(reference.api, [exportFile()]);
    BULK_IMPORT.after = 50;
    // The pass's writes without its end (the process died after its last file).
    const records = (s: number) =>
      Array.from({ length: PER_SESSION }, (_, i) => ({
        id: `bulk${s}x${String(i).padStart(4, "0")}`,
        role: (i % 2 === 0 ? "user" : "assistant") as "user" | "assistant",
        content: content(s, i),
        sendAt: BigInt(Date.UTC(2026, 5, 1, 0, s, i)) * 1_000_000n,
      }));
    for (let s = 0; s < SESSIONS; s++) killed.api.imports.write(`bulk-${s}`, records(s), undefined, { redact: false });
    return { reference, killed };
  }

  test("a pass killed before its end: searches scan and find the same; the daemon's upgrade builds the rest", async () => {
    const { reference, killed } = await killedPass();
    try {
      const expected = await hits(reference.api);
      const during = indexedRows(killed.home);
      expect(during.ready).toBe(false);
      expect(during.indexed).toBeLessThan(SESSIONS * PER_SESSION);
      expect(await hits(killed.api)).toEqual(expected);
      const done = await killed.api.upgradeIndex();
      expect(done.done).toBe(true);
      expect(indexedRows(killed.home)).toEqual({
        indexed: SESSIONS * PER_SESSION,
        messages: SESSIONS * PER_SESSION,
        ready: true,
      });
      expect(await hits(killed.api)).toEqual(expected);
    } finally {
      reference.api.close();
      killed.api.close();
    }
  });

  test("the next large pass builds what a killed one left, and returns with the index whole", async () => {
    const { reference, killed } = await killedPass();
    try {
      expect(indexedRows(killed.home).ready).toBe(false);
      const seen: ImportProgress[] = [];
      const r = await importJsonlFiles(killed.api, [exportFile("more")], { onProgress: (p) => seen.push(p) });
      expect(r.messages.added).toBe(SESSIONS * PER_SESSION);
      expect(seen.some((p) => p.indexing)).toBe(true);
      const all = 2 * SESSIONS * PER_SESSION;
      expect(indexedRows(killed.home)).toEqual({ indexed: all, messages: all, ready: true });
    } finally {
      reference.api.close();
      killed.api.close();
    }
  });
});

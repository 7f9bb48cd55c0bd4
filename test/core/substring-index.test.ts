// The substring index (messages_trigram): kept in step by every write and deletion, built in the background
// on a home made before it existed (resumable, search on the scan until it is complete), and its searches
// finding what the scan finds.
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { openDatabase } from "../../src/storage/sqlite/open-database.ts";
import { insertMessages } from "../../src/storage/sqlite/messages-repo.ts";
import { replaceMessageContent } from "../../src/storage/sqlite/message-content-repo.ts";
import { trigramForm, trigramReady } from "../../src/storage/sqlite/substring-index.ts";
import { SCANNED_TIER } from "../../src/storage/sqlite/substring-queries.ts";
import { cli, openTemp, removeTempHomes, repoRoot, tempHome, waitFor } from "../fixture/home.ts";

afterAll(removeTempHomes);

const NOW = 1_790_000_000_000_000_000n;
const ENV = { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" };

/** Seqs the index holds for a text: every trigram of its index form, then checked by no one (index only). */
function indexed(db: Database, text: string): bigint[] {
  const chars = Array.from(trigramForm(text).trimEnd().toLowerCase());
  const grams = new Set<string>();
  for (let i = 0; i + 3 <= chars.length; i++) grams.add(chars.slice(i, i + 3).join(""));
  const match = [...grams].map((g) => `"${g.replaceAll('"', '""')}"`).join(" AND ");
  return (
    db.query("SELECT rowid FROM messages_trigram WHERE messages_trigram MATCH ?").values(match) as [bigint][]
  ).map((r) => BigInt(r[0]));
}

/** Rows of a seq left anywhere in the index's pages (deleted rows included until the index is merged). */
const leftovers = (db: Database, seq: bigint) =>
  Number((db.query("SELECT count(*) AS n FROM messages_trigram_terms WHERE doc = ?").get(seq) as { n: bigint }).n);

const openDb = (home: string) => new Database(join(home, ".store", "history.db"), { safeIntegers: true });

describe("substring index writes", () => {
  test("add, rm-message, reset and rm keep it in step, and leave no removed text in it", async () => {
    const { home, api } = openTemp({ now: () => NOW, env: ENV });
    try {
      const pad = " filler".repeat(30);
      api.add("a", { role: "user", content: `first zorblax-alpha note${pad}`, sendAt: NOW - 10_000n });
      for (let i = 0; i < 20; i++)
        api.add("a", { role: "user", content: `middle ${i} quexfrob-beta${pad}`, sendAt: NOW - 9_000n + BigInt(i) });
      api.add("b", { role: "user", content: "in b: wumpcake-gamma && more", sendAt: NOW - 100n });
      api.add("c", { role: "user", content: "in c: plinketh-delta", sendAt: NOW - 50n });
      const db = openDb(home);
      try {
        expect(trigramReady(db)).toBe(true);
        const seqOf = (text: string) =>
          BigInt((db.query("SELECT seq FROM messages WHERE content LIKE ?").get(`%${text}%`) as { seq: bigint }).seq);
        const alpha = seqOf("zorblax-alpha"); // archived by compaction by now: still indexed
        expect(indexed(db, "ZORBLAX-alpha")).toEqual([alpha]);
        expect(indexed(db, "quexfrob-beta").length).toBe(20);
        const gamma = seqOf("wumpcake-gamma");
        expect(indexed(db, "wumpcake-gamma &&")).toEqual([gamma]);

        const id = (api.history("b")[0] as { id: string }).id;
        await api.rmMessage(id);
        expect(indexed(db, "wumpcake-gamma")).toEqual([]);
        expect(leftovers(db, gamma)).toBe(0);

        const delta = seqOf("plinketh-delta");
        api.reset("c");
        expect(indexed(db, "plinketh-delta")).toEqual([]);
        expect(leftovers(db, delta)).toBe(0);

        api.remove("a");
        expect(indexed(db, "zorblax-alpha")).toEqual([]);
        expect(indexed(db, "quexfrob-beta")).toEqual([]);
        expect(leftovers(db, alpha)).toBe(0);
      } finally {
        db.close();
      }
      expect((await api.search({ query: "zorblax" })).hits).toEqual([]);
    } finally {
      api.close();
    }
  });

  test("a message whose text grows (import) is indexed with its new text", () => {
    const db = openDatabase(join(tempHome(), "history.db"));
    try {
      const [seq] = db.transaction(() =>
        insertMessages(db, "s", [{ id: "m1", role: "assistant", content: "partial reply", sendAt: NOW }], NOW),
      )();
      expect(indexed(db, "partial reply")).toEqual([seq!]);
      db.transaction(() => replaceMessageContent(db, "s", "m1", "partial reply, then the grizzlewort ending"))();
      expect(indexed(db, "grizzlewort ending")).toEqual([seq!]);
      expect(indexed(db, "partial reply")).toEqual([seq!]);
      db.transaction(() => replaceMessageContent(db, "s", "m1", "rewritten entirely"))();
      expect(indexed(db, "grizzlewort")).toEqual([]);
    } finally {
      db.close();
    }
  });
});

const TOPICS = ["deploy the server", "payment refund", "std::vector && c > d", "ÄRGER im Büro", "東京の会議"];

/** Make the home look as if made before the substring index (schema version 7, so without 009's changes either). */
function toSchema7(home: string): void {
  const db = new Database(join(home, ".store", "history.db"));
  try {
    db.transaction(() => {
      db.run("DROP TABLE index_tokens_build");
      db.run("ALTER TABLE messages DROP COLUMN index_tokens");
      db.run("DROP TABLE messages_trigram_terms");
      db.run("DROP TABLE messages_trigram");
      db.run("DROP TABLE trigram_build");
      db.run("PRAGMA user_version = 7");
    })();
  } finally {
    db.close();
  }
}

const QUERIES = ["deploy", "ärger", "&&", "c > d", "::", "会議", "refund"];

async function allResults(home: string): Promise<Record<string, string[]>> {
  const { api } = openTemp({ home, now: () => NOW, env: ENV });
  try {
    const out: Record<string, string[]> = {};
    for (const q of QUERIES) {
      out[q] = (await api.search({ query: q, limit: 500 })).hits.map((h) => h.message.id).sort();
      out[`${q} in beta`] = (await api.search({ query: q, session: "beta", limit: 500 })).hits
        .map((h) => h.message.id)
        .sort();
    }
    return out;
  } finally {
    api.close();
  }
}

describe("substring index build", () => {
  test("a home made before it: search keeps the scan until the build is complete; the build resumes after a kill; add never waits for it", async () => {
    const { home, api: first } = openTemp({ now: () => NOW, env: ENV });
    try {
      for (let round = 0; round < 60; round += 10)
        for (const s of ["alpha", "beta"])
          first.add(
            s,
            Array.from({ length: 10 }, (_, i) => ({
              role: "user" as const,
              content: `${s} ${round + i}: ${TOPICS[(round + i) % TOPICS.length]}`,
              sendAt: NOW - BigInt(1000 - round - i) * 1_000_000_000n,
            })),
          );
    } finally {
      first.close();
    }
    const expected = await allResults(home);
    expect(expected["c > d"]!.length).toBe(24);
    expect(expected.ärger!.length).toBe(24);
    toSchema7(home);

    // Reopened: migrated to the empty index, not complete, so search stays on the scan.
    const { api } = openTemp({ home, now: () => NOW, env: ENV });
    try {
      expect(api.indexUpgrade().done).toBe(false);
      expect(await allResults(home)).toEqual(expected);
    } finally {
      api.close();
    }

    // A child builds in small slow steps and is killed once it has made progress.
    const script = `
      import { openMemory } from ${JSON.stringify(join(repoRoot, "src/app/open-memory.ts"))};
      const api = openMemory({ home: ${JSON.stringify(home)}, env: {}, drain: "off" });
      await api.upgradeIndex({ batch: 10, pauseMs: 250, progress: (d, t) => console.log(d + "/" + t) });
    `;
    const child = Bun.spawn(["bun", "-e", script], { stdout: "pipe", stderr: "inherit" });
    const reader = child.stdout.getReader();
    let seen = "";
    await waitFor(
      async () => {
        const { value } = await reader.read();
        seen += new TextDecoder().decode(value ?? new Uint8Array());
        return seen.split("\n").filter(Boolean).length >= 3;
      },
      30_000,
      "build progress",
    );
    child.kill(9);
    await child.exited;

    const { api: again } = openTemp({ home, now: () => NOW, env: ENV });
    try {
      const mid = again.indexUpgrade();
      expect(mid.done).toBe(false);
      expect(mid.copied).toBeGreaterThan(0);
      expect(mid.copied).toBeLessThan(mid.total);
      // Half built: search still finds every match (the index alone would miss the rows not built yet).
      expect(await allResults(home)).toEqual(expected);
      // add goes on meanwhile; its row is left to the build (it comes after the cursor).
      again.add("beta", { role: "user", content: "late: c > d again", sendAt: NOW });
      const r = await again.upgradeIndex({ batch: 7 });
      expect(r.done).toBe(true);
      expect(again.indexUpgrade().done).toBe(true);
      const db = openDb(home);
      try {
        expect(trigramReady(db)).toBe(true);
        expect(indexed(db, "late: c > d again").length).toBe(1);
        expect(indexed(db, "c > d").length).toBe(25);
      } finally {
        db.close();
      }
      const late = (await again.search({ query: "c > d", limit: 500 })).hits.map((h) => h.message.id).sort();
      expect(late.length).toBe(25);
      expect(late.filter((id) => !expected["c > d"]!.includes(id)).length).toBe(1);
      // A tier this small is scanned; through the index, search finds the same.
      const scanned = await allResults(home);
      const rows = SCANNED_TIER.rows;
      SCANNED_TIER.rows = 0;
      try {
        expect(await allResults(home)).toEqual(scanned);
      } finally {
        SCANNED_TIER.rows = rows;
      }
    } finally {
      again.close();
    }
  }, 120_000);

  test("memvoy doctor --migrate builds it with the keyword index", async () => {
    const { home, api } = openTemp({ now: () => NOW, env: ENV });
    try {
      api.add("s", [
        { role: "user", content: "one && two", sendAt: NOW - 2n },
        { role: "user", content: "three", sendAt: NOW - 1n },
      ]);
    } finally {
      api.close();
    }
    toSchema7(home);
    const r = await cli(["doctor", "--migrate"], { home });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("keyword index: upgraded (2 messages");
    const db = openDb(home);
    try {
      expect(trigramReady(db)).toBe(true);
      expect(indexed(db, "one && two").length).toBe(1);
    } finally {
      db.close();
    }
  }, 60_000);
});

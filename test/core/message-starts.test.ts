// Long messages' starts kept apart (message_starts, 011-v0.7.sql): every write, edit and removal keeps them; a
// home made before the table ranks the same before, during and after their copy, which resumes after a kill;
// and ranking reads them.
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { openMemory } from "../../src/app/open-memory.ts";
import { RANKED_CHARS } from "../../src/storage/sqlite/ranked-text.ts";
import { replaceMessageContent } from "../../src/storage/sqlite/message-content-repo.ts";
import { removeTempHomes, tempHome } from "../fixture/home.ts";
import { upgradeUntilKilled } from "../fixture/killed-upgrade.ts";
import { searchPages } from "../fixture/search-pages.ts";
import { undoV07 } from "../fixture/old-schema.ts";

afterAll(removeTempHomes);

const NOW = 1_790_000_000_000_000_000n;
const WORDS = ["deploy", "server", "refund", "kiwi", "harbor", "garden", "zeppelin", "alpha", "beta", "gamma", "délai"];
const openDb = (home: string) => new Database(join(home, ".store", "history.db"), { safeIntegers: true });
const open = (home: string) => openMemory({ home, env: {}, now: () => NOW, drain: "off" });

/** Seeded words up to `chars` characters, with İ and a character outside the BMP here and there. */
function text(seed: number, chars: number): string {
  let s = seed;
  let out = "";
  while (out.length < chars) {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    const w = WORDS[s % WORDS.length]!;
    out += s % 97 === 0 ? "İstanbul " : s % 89 === 0 ? "𝒳 " : `${w} `;
  }
  return out;
}

/** The start ranking reads: RANKED_CHARS + 1 characters (code points), as SQLite's substr counts them. */
const startOf = (content: string) =>
  Array.from(content)
    .slice(0, RANKED_CHARS + 1)
    .join("");

/** Long and short rows in two sessions, most of them archived (a small history limit). */
function makeHome(): string {
  const home = tempHome();
  writeFileSync(join(home, "config.toml"), "[limits]\nmax_history_bytes = 100000\n");
  const api = open(home);
  try {
    for (const session of ["one", "two"])
      api.add(
        session,
        Array.from({ length: 120 }, (_, i) => ({
          role: i % 2 ? ("assistant" as const) : ("user" as const),
          content: text(i * 7 + session.length, i % 3 === 0 ? RANKED_CHARS + 200 + ((i * 977) % 9_000) : 80),
          sendAt: NOW - BigInt(1_000 - i) * 1_000_000_000n,
        })),
      );
  } finally {
    api.close();
  }
  return home;
}

const QUERIES = ["zeppelin", "deploy server", "kiwi harbor garden", "délai", "istanbul", "refund zeppelin"];

const pages = (home: string) => searchPages(() => open(home), QUERIES, [undefined, "two"], 40);

/** Long messages whose start is missing or not their text's. */
function wrongStarts(db: Database): { long: number; kept: number; wrong: string[] } {
  const rows = db.query("SELECT seq, content FROM messages").all() as { seq: bigint; content: string }[];
  const kept = new Map(
    (db.query("SELECT seq, head FROM message_starts").all() as { seq: bigint; head: string }[]).map((r) => [
      r.seq,
      r.head,
    ]),
  );
  const long = rows.filter((r) => Buffer.byteLength(r.content) > RANKED_CHARS);
  const wrong = long.filter((r) => kept.has(r.seq) && kept.get(r.seq) !== startOf(r.content)).map((r) => `${r.seq}`);
  const stray = [...kept.keys()].filter((seq) => !long.some((r) => r.seq === seq)).map((s) => `stray ${s}`);
  return { long: long.length, kept: kept.size, wrong: [...wrong, ...stray] };
}

describe("long messages' starts", () => {
  test("every write, edit and removal keeps them", async () => {
    const home = makeHome();
    const api = open(home);
    try {
      const long = text(5, RANKED_CHARS + 3_000);
      api.add("three", [
        { role: "user", content: long, sendAt: NOW },
        { role: "user", content: "short", sendAt: NOW },
      ]);
      // Exactly at the bound: not long (bytes, as octet_length counts them); fewer characters of more bytes: long.
      api.add("three", { role: "user", content: "x".repeat(RANKED_CHARS), sendAt: NOW });
      api.add("three", { role: "user", content: "é".repeat(RANKED_CHARS / 2 + 1), sendAt: NOW });
    } finally {
      api.close();
    }
    let db = openDb(home);
    let s = wrongStarts(db);
    expect(s.long).toBeGreaterThan(40);
    expect(s.kept).toBe(s.long);
    expect(s.wrong).toEqual([]);
    // An import that finds a message's text changed replaces it: its start follows, both ways.
    const [first, second] = db
      .query("SELECT id FROM messages WHERE session_id = 'three' ORDER BY seq")
      .values()
      .map((r) => String(r[0]));
    db.transaction(() => {
      replaceMessageContent(db, "three", first!, "now short");
      replaceMessageContent(db, "three", second!, text(9, RANKED_CHARS + 50));
    })();
    s = wrongStarts(db);
    expect([s.kept, s.wrong]).toEqual([s.long, []]);
    db.close();

    const again = open(home);
    try {
      const id = (await again.search({ query: "zeppelin", session: "one", limit: 1 })).hits[0]!.message.id;
      await again.rmMessage(id);
      again.reset("two");
      again.remove("three");
    } finally {
      again.close();
    }
    db = openDb(home);
    s = wrongStarts(db);
    expect([s.kept, s.wrong]).toEqual([s.long, []]);
    expect(Number((db.query("SELECT count(*) AS n FROM message_starts").get() as { n: bigint }).n)).toBeLessThan(40);
    db.close();
  }, 60_000);

  test("a home made before them ranks the same before, during and after their copy, which resumes after a kill", async () => {
    const home = makeHome();
    const expected = await pages(home);
    {
      const db = openDb(home);
      db.transaction(() => undoV07(db))();
      db.close();
    }
    {
      const api = open(home); // migrates: the table, empty for the rows already there
      try {
        expect(api.indexUpgrade().done).toBe(false);
      } finally {
        api.close();
      }
      const db = openDb(home);
      expect(wrongStarts(db).kept).toBe(0);
      db.close();
    }
    expect(await pages(home)).toEqual(expected);

    await upgradeUntilKilled(home, { batch: 5, what: "the copy of long messages' starts" });
    const db = openDb(home);
    const mid = wrongStarts(db);
    db.close();
    expect(mid.kept).toBeGreaterThan(0);
    expect(mid.kept).toBeLessThan(mid.long);
    expect(mid.wrong).toEqual([]);
    expect(await pages(home)).toEqual(expected);

    const api = open(home);
    try {
      const state = api.indexUpgrade();
      expect(state.done).toBe(false);
      expect(state.copied).toBeGreaterThan(0);
      // add goes on meanwhile; the trigger keeps its row's start.
      api.add("four", { role: "user", content: text(11, RANKED_CHARS + 10), sendAt: NOW - 5_000_000_000_000n });
      expect((await api.upgradeIndex({ batch: 7 })).done).toBe(true);
      expect(api.indexUpgrade().done).toBe(true);
    } finally {
      api.close();
    }
    const done = openDb(home);
    const after = wrongStarts(done);
    done.close();
    expect([after.kept, after.wrong]).toEqual([after.long, []]);
    // Ranked from the kept starts as from the texts themselves.
    const late = await pages(home);
    const emptied = openDb(home);
    emptied.run("DELETE FROM message_starts");
    emptied.close();
    expect(await pages(home)).toEqual(late);
  }, 120_000);

  test("ranking reads a long row's start from them", async () => {
    const home = makeHome();
    // The archived hits in their order (the recent tier's one-word hits are substring matches, ranked by time).
    const rank = async () => {
      const api = open(home);
      try {
        const hits = (await api.search({ query: "zeppelin", session: "one", limit: 200 })).hits;
        return hits.filter((h) => h.source !== "recent").map((h) => h.message.id);
      } finally {
        api.close();
      }
    };
    const before = await rank();
    // The archived long row that ranks lowest: its kept start now holds the word many times, and it ranks first
    // among the archived hits.
    const db = openDb(home);
    const long = db
      .query(
        "SELECT seq, id FROM messages WHERE session_id = 'one' AND recent = 0 AND octet_length(content) > ? AND content LIKE '%zeppelin%'",
      )
      .all(RANKED_CHARS) as { seq: bigint; id: string }[];
    const row = long.sort((a, b) => before.indexOf(b.id) - before.indexOf(a.id))[0]!;
    expect(before.indexOf(row.id)).toBeGreaterThan(5);
    db.query("UPDATE message_starts SET head = ? WHERE seq = ?").run("zeppelin ".repeat(400), row.seq);
    db.close();
    expect((await rank())[0]).toBe(row.id);
  }, 60_000);
});

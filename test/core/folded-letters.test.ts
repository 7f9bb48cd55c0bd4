// Whether messages may hold İ or the Kelvin sign (folded_letters, 012-v0.8.sql): every writer and edit notes them,
// a home made before the table is scanned in the background (resumable after a kill, stopping at the first such
// message), and substring SQL looks for them only where they may be, with the same pages either way.
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { openMemory } from "../../src/app/open-memory.ts";
import { foldedScan, mayHoldFolded } from "../../src/storage/sqlite/folded-letters.ts";
import { holdsLike } from "../../src/storage/sqlite/like-needle.ts";
import { replaceMessageContent } from "../../src/storage/sqlite/message-content-repo.ts";
import { removeTempHomes, tempHome } from "../fixture/home.ts";
import { upgradeUntilKilled } from "../fixture/killed-upgrade.ts";
import { searchPages } from "../fixture/search-pages.ts";
import { undoV08 } from "../fixture/old-schema.ts";

afterAll(removeTempHomes);

const NOW = 1_790_000_000_000_000_000n;
const KELVIN = "\u212a";
const WORDS = ["kiwi", "kubernetes", "deploy", "taxi", "harbor", "kayak", "wiki", "spike", "refund"];
const openDb = (home: string) => new Database(join(home, ".store", "history.db"), { safeIntegers: true });
const open = (home: string) => openMemory({ home, env: {}, now: () => NOW, drain: "off" });

/** 300 messages in three sessions, mostly archived; `odd` puts the Kelvin sign in message 200 (session s2). */
function makeHome(odd: boolean): string {
  const home = tempHome();
  writeFileSync(join(home, "config.toml"), "[limits]\nmax_history_bytes = 4096\n");
  const api = open(home);
  try {
    for (let s = 0; s < 3; s++)
      api.add(
        `s${s}`,
        Array.from({ length: 100 }, (_, i) => {
          const n = s * 100 + i;
          const words = Array.from({ length: 6 }, (_, j) => WORDS[(n * 7 + j * 3) % WORDS.length]!).join(" ");
          return {
            role: "user" as const,
            content: odd && n === 200 ? `${words} 5${KELVIN} ${KELVIN}ILNWORK` : words,
            sendAt: NOW - BigInt(1_000 - n) * 1_000_000_000n,
          };
        }),
      );
  } finally {
    api.close();
  }
  return home;
}

// "kilnwork" is in the odd message only, through the Kelvin sign's lower case.
const QUERIES = ["kilnwork", "kubernetes", "kiwi kayak", "wiki", "spike taxi", "kayak"];

const pages = (home: string) => searchPages(() => open(home), QUERIES, [undefined, "s1"], 30);

const state = (home: string) => {
  const db = openDb(home);
  try {
    return { scan: foldedScan(db)!, may: mayHoldFolded(db) };
  } finally {
    db.close();
  }
};

describe("İ and the Kelvin sign in messages", () => {
  test("a new home holds neither until a write or an edit brings one; LIKE then looks for them", () => {
    const home = makeHome(false);
    expect(state(home)).toEqual({ scan: { seen: false, cursor: 0n, upto: 0n }, may: false });
    {
      const db = openDb(home);
      expect(holdsLike(db, "content", "kiwi").sql).not.toContain("instr");
      db.close();
    }
    const api = open(home);
    try {
      api.add("s9", { role: "user", content: `İstanbul`, sendAt: NOW });
    } finally {
      api.close();
    }
    expect(state(home).may).toBe(true);
    const db = openDb(home);
    expect(holdsLike(db, "content", "kiwi").sql).toContain("instr");
    // An edit: a second home, its text replaced by one holding the Kelvin sign.
    const other = makeHome(false);
    const odb = openDb(other);
    const id = String(
      odb.query("SELECT id FROM messages WHERE session_id = 's2' ORDER BY seq LIMIT 1").values()[0]![0],
    );
    odb.transaction(() => replaceMessageContent(odb, "s2", id, `5${KELVIN} kiwi`))();
    odb.close();
    expect(state(other).may).toBe(true);
    db.close();
  }, 60_000);

  test("a home made before the table is scanned: resumable after a kill, the same pages before and after", async () => {
    for (const odd of [false, true]) {
      const home = makeHome(odd);
      const expected = await pages(home);
      {
        const db = openDb(home);
        db.transaction(() => undoV08(db))();
        db.close();
      }
      const api = open(home); // migrates: nothing known of the rows already there
      try {
        expect(api.indexUpgrade().done).toBe(false);
      } finally {
        api.close();
      }
      expect(state(home)).toEqual({ scan: { seen: false, cursor: 0n, upto: 300n }, may: true });
      expect(await pages(home)).toEqual(expected);

      await upgradeUntilKilled(home, { batch: 5, what: "the scan for İ and the Kelvin sign" });
      const mid = state(home);
      expect(mid.scan.cursor).toBeGreaterThan(0n);
      expect(mid.scan.cursor).toBeLessThan(200n);
      expect(mid).toMatchObject({ scan: { seen: false }, may: true });
      expect(await pages(home)).toEqual(expected);

      const again = open(home);
      try {
        expect((await again.upgradeIndex({ batch: 7 })).done).toBe(true);
        expect(again.indexUpgrade()).toMatchObject({ done: true });
      } finally {
        again.close();
      }
      expect(state(home)).toEqual({ scan: { seen: odd, cursor: 300n, upto: 300n }, may: odd });
      expect(await pages(home)).toEqual(expected);
      // The Kelvin sign's row is found by its lower case, k for K.
      expect([expected[0]!.length, expected[1]!.length]).toEqual(odd ? [1, 0] : [0, 0]);
    }
  }, 120_000);
});

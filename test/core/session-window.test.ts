import { afterAll, describe, expect, test } from "bun:test";
import { openTemp, removeTempHomes } from "../fixture/home.ts";
import { ONE_TERM_WINDOW, scanRecent, windowTexts } from "../../src/storage/sqlite/keyword-queries.ts";
import { SCANNED_TIER, substringMatches } from "../../src/storage/sqlite/substring-queries.ts";
import { openDatabase } from "../../src/storage/sqlite/open-database.ts";
import { ftsHasSession } from "../../src/storage/sqlite/fts-upgrade.ts";
import { toOldIndex } from "../fixture/old-schema.ts";

afterAll(removeTempHomes);

const NOW = 1_790_000_000_000_000_000n;
const seqs = (rows: readonly { seq: bigint }[]) => rows.map((r) => r.seq).sort((a, b) => (a < b ? -1 : 1));

describe("a session's match window", () => {
  test("holds the session's newest matches however many rows the session has (read oldest first up to four windows)", () => {
    const size = ONE_TERM_WINDOW;
    for (const [n, old] of [
      [size - 100, false],
      [size + 300, false],
      [3 * size, false],
      [5 * size, false],
      [3 * size, true],
    ] as const) {
      const { api, home } = openTemp({ now: () => NOW });
      let db = openDatabase(api.paths.db);
      try {
        // Two sessions written in turns, so that neither one's rows are contiguous.
        for (let part = 0; part < 4; part++)
          for (const session of ["a", "b"])
            api.add(
              session,
              Array.from({ length: n / 4 }, (_, k) => {
                const i = part * (n / 4) + k;
                return {
                  role: i % 2 ? ("assistant" as const) : ("user" as const),
                  content: `${i % 3 ? "deploy" : "server"} ${i % 7 === 0 ? "rollback" : "step"} ${session} ${i}`,
                  sendAt: NOW - BigInt(n - i) * 1_000_000_000n,
                };
              }),
            );
        // The keyword index before it carried a session column (a home not upgraded yet).
        if (old) {
          db.close();
          toOldIndex(home);
          db = openDatabase(api.paths.db);
          expect(ftsHasSession(db)).toBe(false);
        }
        for (const match of ['"deploy"', '"rollback"', '"deploy" OR "server"', '"server" AND "rollback"'])
          for (const tier of [true, undefined]) {
            const f = { session: "a", recent: tier };
            // The definition: the newest `size` matches, read newest first.
            const newest = windowTexts(db, match, size, { ...f, passing: true });
            const got = windowTexts(db, match, size, f);
            expect({ n, old, match, tier, seqs: seqs(got) }).toEqual({ n, old, match, tier, seqs: seqs(newest) });
            expect(got.length).toBe(Math.min(size, newest.length));
          }
      } finally {
        db.close();
        api.close();
      }
    }
  });
});

describe("a large session's substring matches", () => {
  test("are the scan's, read from its newest rows or the substring index, whatever the needle", () => {
    const { api } = openTemp({ now: () => NOW });
    const db = openDatabase(api.paths.db);
    const tier = SCANNED_TIER.rows;
    try {
      // Two sessions written in turns; "kubernetes" only in the big one's older rows, "ab" in a few of them.
      for (let part = 0; part < 6; part++)
        for (const session of ["big", "other"])
          api.add(
            session,
            Array.from({ length: 500 }, (_, k) => {
              const i = part * 500 + k;
              const rare = i < 1500 && i % 40 === 0 ? " Kubernetes" : "";
              return {
                role: "user" as const,
                content: `step ${i}${rare}${i % 333 === 0 ? " ab" : ""} ${session}`,
                sendAt: NOW - BigInt(6000 - i) * 1_000_000_000n,
              };
            }),
          );
      const seqsOf = (rows: readonly { seq: bigint }[]) => rows.map((r) => r.seq);
      for (const needles of [["step"], ["kubernetes"], ["kubernetes", "step"], ["zzz"], ["ab"], ["ubernete"]])
        for (const limit of [1, 10, 50]) {
          const f = { session: "big" };
          SCANNED_TIER.rows = 1e9;
          const scanned = seqsOf(scanRecent(db, needles, f, limit));
          SCANNED_TIER.rows = 0;
          const indexed = seqsOf(scanRecent(db, needles, f, limit));
          expect({ needles, limit, seqs: indexed }).toEqual({ needles, limit, seqs: scanned });
          // The substring index answers itself (the caller's scan is not what ran).
          const own = substringMatches(db, needles, { ...f, recent: true }, limit);
          expect({ needles, limit, seqs: own && seqsOf(own) }).toEqual({ needles, limit, seqs: scanned });
        }
      expect(seqsOf(scanRecent(db, ["kubernetes"], { session: "big" }, 50)).length).toBe(38);
    } finally {
      SCANNED_TIER.rows = tier;
      db.close();
      api.close();
    }
  });
});

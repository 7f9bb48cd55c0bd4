import { afterAll, describe, expect, test } from "bun:test";
import { openTemp, removeTempHomes } from "../fixture/home.ts";
import { ONE_TERM_WINDOW, windowTexts } from "../../src/storage/sqlite/keyword-queries.ts";
import { openDatabase } from "../../src/storage/sqlite/open-database.ts";

afterAll(removeTempHomes);

const NOW = 1_790_000_000_000_000_000n;
const seqs = (rows: readonly { seq: bigint }[]) => rows.map((r) => r.seq).sort((a, b) => (a < b ? -1 : 1));

describe("a session's match window", () => {
  test("holds the session's newest matches however many rows the session has (read oldest first up to four windows)", () => {
    const size = ONE_TERM_WINDOW;
    for (const n of [size - 100, size + 300, 3 * size, 5 * size]) {
      const { api } = openTemp({ now: () => NOW });
      const db = openDatabase(api.paths.db);
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
        for (const match of ['"deploy"', '"rollback"', '"deploy" OR "server"', '"server" AND "rollback"'])
          for (const tier of [true, undefined]) {
            const f = { session: "a", recent: tier };
            // The definition: the newest `size` matches, read newest first.
            const newest = windowTexts(db, match, size, { ...f, passing: true });
            const got = windowTexts(db, match, size, f);
            expect({ n, match, tier, seqs: seqs(got) }).toEqual({ n, match, tier, seqs: seqs(newest) });
            expect(got.length).toBe(Math.min(size, newest.length));
          }
      } finally {
        db.close();
        api.close();
      }
    }
  });
});

// A match window's rows as ranking reads them: a long row's send time, sender and length (read apart from its
// text, see windowTexts) are those of the message, beside short rows read at once.
import { afterAll, expect, test } from "bun:test";
import { openDatabase } from "../../src/storage/sqlite/open-database.ts";
import { getMessagesBySeq } from "../../src/storage/sqlite/messages-repo.ts";
import { windowRows, windowTexts } from "../../src/storage/sqlite/keyword-queries.ts";
import { RANKED_CHARS } from "../../src/storage/sqlite/ranked-text.ts";
import { openTemp, removeTempHomes } from "../fixture/home.ts";

afterAll(removeTempHomes);

test("window rows of long and short texts carry their message's send time, sender and length", () => {
  const { api } = openTemp();
  const senders = ["ann", undefined, "bob"];
  api.add(
    "s",
    Array.from({ length: 30 }, (_, i) => ({
      role: "user" as const,
      content: `zeta ${i} ${i % 2 === 0 ? "filler text ".repeat(Math.ceil((RANKED_CHARS * (1 + (i % 4))) / 12)) : "short"}`,
      sendAt: 1_790_000_000_000_000_000n + BigInt(i) * 3_600_000_000_000n,
      ...(senders[i % 3] ? { sender: senders[i % 3] } : {}),
    })),
  );
  const path = api.paths.db;
  api.close();
  const db = openDatabase(path);
  try {
    const rows = windowTexts(db, '"zeta"', 100, {});
    expect(rows.length).toBe(30);
    const stored = new Map(
      getMessagesBySeq(
        db,
        rows.map((r) => r.seq),
      ).map((m) => [m.seq, m]),
    );
    const lengths = new Map(windowRows(db, '"zeta"', 100, {}).map((r) => [r.message.seq, r.tokens]));
    const seen = rows.map((r) => ({
      seq: r.seq,
      sendAt: r.sendAt,
      sender: r.sender,
      tokens: r.tokens,
      recent: r.recent,
    }));
    const want = rows.map((r) => {
      const m = stored.get(r.seq)!;
      return { seq: m.seq, sendAt: m.sendAt, sender: m.sender, tokens: lengths.get(m.seq) ?? -1, recent: m.recent };
    });
    expect(seen).toEqual(want);
    expect(rows.filter((r) => (r.lower?.length ?? 0) >= RANKED_CHARS).length).toBe(15);
  } finally {
    db.close();
  }
});

// The substring index's case folding against the runtime's lower case: every capital a needle's trigrams would
// miss is listed in UNFOLDED_CAPITALS (or is İ), so a runtime or SQLite upgrade that changes either shows here.
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { foldSafeRuns, UNFOLDED_CAPITALS } from "../../src/storage/sqlite/trigram-fold.ts";

test("every capital whose lower-cased trigrams the index does not hold is left out of row selection", () => {
  const db = new Database(":memory:");
  try {
    db.run("CREATE VIRTUAL TABLE t USING fts5(c, tokenize='trigram case_sensitive 0', detail=none)");
    const cased: number[] = [];
    for (let c = 0x41; c < 0x30000; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      const s = String.fromCodePoint(c);
      if (s.toLowerCase() !== s) cased.push(c);
    }
    const insert = db.query("INSERT INTO t(rowid, c) VALUES (?, ?)");
    db.transaction(() => {
      for (const c of cased) insert.run(c, `x${String.fromCodePoint(c)}y`);
    })();
    const match = db.query("SELECT rowid FROM t WHERE t MATCH ?");
    const missed = cased.filter((c) => {
      const chars = Array.from(`x${String.fromCodePoint(c)}y`.toLowerCase());
      const grams = chars.slice(0, -2).map((_, i) => `"${chars.slice(i, i + 3).join("")}"`);
      return !(match.values(grams.join(" AND ")) as [number][]).some((r) => r[0] === c);
    });
    const listed = (c: number) => c === 0x130 || UNFOLDED_CAPITALS.some(([from, to]) => c >= from && c <= to);
    expect(missed.filter((c) => !listed(c)).map((c) => `U+${c.toString(16)}`)).toEqual([]);
    expect(missed.length).toBeGreaterThan(0);
  } finally {
    db.close();
  }
});

test("a needle is cut where its characters may stand for capitals the index keeps apart", () => {
  expect(foldSafeRuns(Array.from("deploy"))).toEqual([Array.from("deploy")]);
  expect(foldSafeRuns(Array.from("i̇stanbul"))).toEqual([Array.from("stanbul")]);
  expect(foldSafeRuns(Array.from("x?i̇σ"))).toEqual([["x", "?"], ["σ"]]);
  expect(foldSafeRuns(Array.from("ꮳꮃ"))).toEqual([]);
  expect(foldSafeRuns(Array.from("über ist"))).toEqual([Array.from("über ist")]);
});

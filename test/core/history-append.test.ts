// Appends spliced onto the cached bytes of history.json write exactly what a full rewrite would.
import { afterAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { forgetHistoryCache, parseHistory, serializeHistory } from "../../src/storage/history/history-file.ts";
import { openTemp, removeTempHomes } from "../fixture/home.ts";

afterAll(removeTempHomes);

test("many single appends (more than the cached chunks) keep the file byte-identical to a full serialisation", () => {
  const { api } = openTemp();
  const file = api.paths.history("s");
  for (let i = 0; i < 90; i++) {
    api.add("s", { role: i % 2 ? "assistant" : "user", content: `message ${i} — 数据库 ${"x".repeat(i)}` });
    if (i === 17) forgetHistoryCache(); // a cache miss in the middle re-reads the file
  }
  const text = readFileSync(file, "utf8");
  const doc = parseHistory(text, file);
  expect(doc.records).toHaveLength(90);
  expect(text).toBe(serializeHistory(doc.records));
  expect(doc.records.map((r) => r.content)).toEqual(api.history("s", { all: true }).map((m) => m.content));
  api.close();
}, 60_000);

test("batches and single adds mixed, across sessions: every file parses and matches the archive", () => {
  const { api } = openTemp();
  for (let round = 0; round < 3; round++) {
    for (const s of ["a", "b", "c"]) {
      api.add(
        s,
        Array.from({ length: 5 }, (_, i) => ({
          role: i % 2 ? ("assistant" as const) : ("user" as const),
          content: `${s}${round}.${i}`,
        })),
      );
      api.add(s, { role: "user", content: `${s}${round} single` });
    }
  }
  for (const s of ["a", "b", "c"]) {
    const text = readFileSync(api.paths.history(s), "utf8");
    const doc = parseHistory(text, s);
    expect(text).toBe(serializeHistory(doc.records));
    expect(doc.records.map((r) => r.id)).toEqual(api.history(s, { all: true }).map((m) => m.id));
  }
  api.close();
});

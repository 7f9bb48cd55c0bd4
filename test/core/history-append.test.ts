// Appends spliced onto the cached bytes of history.json write exactly what a full rewrite would.
import { afterAll, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import {
  beginAppend,
  forgetHistoryCache,
  parseHistory,
  readHistory,
  serializeHistory,
} from "../../src/storage/history/history-file.ts";
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

test("an append begun early leaves no temp file when it writes nothing or its base changed meanwhile", () => {
  const { api } = openTemp();
  const file = api.paths.history("s");
  const dir = dirname(file);
  api.add("s", { role: "user", content: "first", idempotencyKey: "k1" });
  api.add("s", { role: "assistant", content: "second" });
  const before = readFileSync(file, "utf8");
  // A stored idempotency key: nothing to write, the early temp file is removed and history.json is untouched.
  expect(api.add("s", { role: "user", content: "first again", idempotencyKey: "k1" }).duplicates).toBe(1);
  expect(readFileSync(file, "utf8")).toBe(before);
  expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  // The cached list is not the base any more: stage() refuses, removes its temp file, and the caller rewrites.
  const doc = readHistory(file, { shared: true });
  const pending = beginAppend(file, doc.records.slice());
  expect(pending).toBeUndefined();
  const begun = beginAppend(file, doc.records)!;
  expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toHaveLength(1);
  expect(begun.stage(doc.records.slice(), [{ id: "X", role: "user", content: "x", sendAt: 1n }])).toBeUndefined();
  begun.discard(); // after stage(): nothing left to remove, no error
  expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  expect(readFileSync(file, "utf8")).toBe(before);
  // Staged: the file is the cached bytes plus the new record, as a full serialisation would write it.
  const record = { id: "01J00000000000000000000000", role: "user" as const, content: "third", sendAt: 2n };
  beginAppend(file, doc.records)!.stage(doc.records, [record])!.commit();
  const text = readFileSync(file, "utf8");
  expect(text).toBe(serializeHistory(parseHistory(text, file).records));
  expect(parseHistory(text, file).records.map((r) => r.content)).toEqual(["first", "second", "third"]);
  api.close();
});

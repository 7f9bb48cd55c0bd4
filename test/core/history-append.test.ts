// Appends spliced onto the cached bytes of history.json write exactly what a full rewrite would.
import { afterAll, expect, test } from "bun:test";
import { closeSync, fstatSync, openSync, readdirSync, readFileSync, readlinkSync, readSync, statSync } from "node:fs";
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

test("adds to a history.json past the release size: each is a new file, the old ones held nowhere once freed", async () => {
  const { api } = openTemp();
  const file = api.paths.history("s");
  const dir = dirname(file);
  api.add(
    "s",
    Array.from({ length: 300 }, (_, i) => ({ role: "user" as const, content: `bulk ${i} ${"y".repeat(600)}` })),
  );
  expect(statSync(file).size).toBeGreaterThan(128 * 1024);
  for (let i = 0; i < 8; i++) {
    const before = openSync(file, "r"); // a reader's descriptor keeps seeing the version it opened
    const old = readFileSync(file);
    api.add("s", { role: i % 2 ? "assistant" : "user", content: `single ${i}` });
    const seen = Buffer.alloc(old.length + 1);
    expect(readSync(before, seen, 0, seen.length, 0)).toBe(old.length);
    expect(seen.subarray(0, old.length).equals(old)).toBe(true);
    expect(statSync(file).ino).not.toBe(fstatSync(before).ino); // renamed into place, not written over
    closeSync(before);
    const text = readFileSync(file, "utf8");
    expect(text).toBe(serializeHistory(parseHistory(text, file).records));
    expect(readdirSync(dir)).toEqual(["history.json"]);
  }
  expect(parseHistory(readFileSync(file, "utf8"), file).records.map((r) => r.id)).toEqual(
    api.history("s", { all: true }).map((m) => m.id),
  );
  if (process.platform === "linux") {
    const removed = () =>
      readdirSync("/proc/self/fd").filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`).startsWith(`${dir}/`);
        } catch {
          return false;
        }
      });
    for (let i = 0; i < 500 && removed().length > 0; i++) await Bun.sleep(10);
    expect(removed()).toEqual([]);
  }
  api.close();
});

// Staged atomic writes: byte chunks land in order (one writev), nothing changes at the target before commit.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stageFileAtomic, writeFileAtomic } from "../../src/shared/atomic-write.ts";
import { describeError } from "../../src/shared/describe-error.ts";
import { startDataSync } from "../../src/shared/background-sync.ts";
import { removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

test("chunks are written in order, empty and large ones included; the target changes only at commit", () => {
  const dir = tempHome();
  const target = join(dir, "doc.json");
  writeFileSync(target, "old");
  const big = Buffer.alloc(3 * 1024 * 1024, "b");
  const chunks = [
    Buffer.from("[\n"),
    Buffer.alloc(0),
    big,
    Buffer.from("é,数据"),
    ...Array.from({ length: 70 }, (_, i) => Buffer.from(`${i};`)),
    Buffer.from("\n]\n"),
  ];
  const staged = stageFileAtomic(target, chunks);
  expect(readFileSync(target, "utf8")).toBe("old");
  staged.commit();
  expect(readFileSync(target).equals(Buffer.concat(chunks))).toBe(true);
  expect(readdirSync(dir)).toEqual(["doc.json"]);
});

test("discard leaves the target as it was and no temp file behind", () => {
  const dir = tempHome();
  const target = join(dir, "doc.json");
  writeFileSync(target, "old");
  stageFileAtomic(target, [Buffer.from("new "), Buffer.from("text")]).discard();
  expect(readFileSync(target, "utf8")).toBe("old");
  expect(readdirSync(dir)).toEqual(["doc.json"]);
  stageFileAtomic(join(dir, "fresh.txt"), "text").commit();
  expect(existsSync(join(dir, "fresh.txt"))).toBe(true);
});

test("a sync left to run on another thread: synced(), commit() and discard() wait for it", () => {
  const dir = tempHome();
  const target = join(dir, "doc.json");
  writeFileSync(target, "old");
  const big = Buffer.alloc(2 * 1024 * 1024, "c");
  const staged = stageFileAtomic(target, [big, Buffer.from("end")], { syncLater: true });
  staged.synced();
  staged.synced(); // waiting twice is harmless
  expect(readFileSync(target, "utf8")).toBe("old");
  staged.commit();
  expect(readFileSync(target).equals(Buffer.concat([big, Buffer.from("end")]))).toBe(true);
  stageFileAtomic(target, "unsynced", { syncLater: true }).commit(); // commit without synced() first
  expect(readFileSync(target, "utf8")).toBe("unsynced");
  stageFileAtomic(target, "dropped", { syncLater: true }).discard();
  expect(readFileSync(target, "utf8")).toBe("unsynced");
  expect(readdirSync(dir)).toEqual(["doc.json"]);
});

test("a failed background sync throws what fdatasync throws", () => {
  expect(() => startDataSync(987_654)()).toThrow(expect.objectContaining({ code: "EBADF", syscall: "fdatasync" }));
});

test("a folder at the target: the error names the target (not the temp file, which is removed)", () => {
  const dir = tempHome();
  const target = join(dir, "http.json");
  mkdirSync(join(target, "inside"), { recursive: true });
  expect(() => writeFileAtomic(target, "{}")).toThrow("EISDIR");
  let caught: unknown;
  try {
    writeFileAtomic(target, "{}");
  } catch (err) {
    caught = err;
  }
  expect(describeError(caught)).toBe(`${target} is a folder where memvoy keeps a file: move it aside`);
  expect(readdirSync(dir)).toEqual(["http.json"]);
});

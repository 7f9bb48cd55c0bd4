// lockFree: this process's waiters for another holder's lock go on in the order they came, so that the writes a
// server was asked for one after another (an MCP client's add_messages calls) are made in that order.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lockFree, tryLockFile } from "../../src/shared/file-lock.ts";

const dir = mkdtempSync(join(tmpdir(), "memvoy-lockfree-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("a waiter that came first goes first, though a newcomer finds the lock free at once", async () => {
  const path = join(dir, "write.lock");
  // Held through a descriptor of its own, as another process holds it: this process's lockFree must wait.
  const release = tryLockFile(path)!;
  expect(release).toBeDefined();
  const order: string[] = [];
  const first = lockFree(path).then(() => order.push("first"));
  const second = lockFree(path).then(() => order.push("second"));
  // Long enough for the waiters to back off to their longest pause between looks.
  await Bun.sleep(300);
  release();
  // Comes right as the lock is let go: its first look would find it free before the others look again.
  const late = lockFree(path).then(() => order.push("late"));
  await Promise.all([first, second, late]);
  expect(order).toEqual(["first", "second", "late"]);
});

test("with the lock free, lockFree resolves at once, and waits for nothing left over", async () => {
  const path = join(dir, "free.lock");
  const started = performance.now();
  for (let i = 0; i < 5; i++) await lockFree(path);
  expect(performance.now() - started).toBeLessThan(1_000);
});

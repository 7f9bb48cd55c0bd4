// Exact-point kills (MEMVOY_TEST_FAULT, test-only): a writer killed between the SQLite commit and the
// history.json rename is rolled forward by the next writer, compaction included; a writer killed with its
// temp file written leaves nothing the next writer does not remove; idempotency keys make retries safe.
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, openTemp, removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

const fault = (point: string) => ({ MEMVOY_TEST_FAULT: point });
const fileIds = (home: string, s: string) =>
  existsSync(join(home, "sessions", s, "history.json"))
    ? (JSON.parse(readFileSync(join(home, "sessions", s, "history.json"), "utf8")) as { id: string; content: string }[])
    : [];

function archive(home: string, s: string) {
  const db = new Database(join(home, ".store", "history.db"), { readonly: true, safeIntegers: true });
  try {
    const rows = db.query("SELECT id, content, recent FROM messages WHERE session_id = ? ORDER BY seq").all(s) as {
      id: string;
      content: string;
      recent: bigint;
    }[];
    const meta = db.query("SELECT start_seq FROM message_meta WHERE session_id = ?").get(s) as {
      start_seq: bigint;
    } | null;
    return { rows, recent: rows.filter((r) => r.recent === 1n).map((r) => r.id), startSeq: meta?.start_seq };
  } finally {
    db.close();
  }
}

test("killed after the SQLite commit: the next writer, in any session, rolls history.json forward", async () => {
  const home = tempHome();
  expect((await cli(["add", "s1", "--role", "user", "--content", "first"], { home })).code).toBe(0);
  const killed = await cli(["add", "s1", "--role", "assistant", "--content", "second", "--idempotency-key", "k-2"], {
    home,
    env: fault("after-archive-commit"),
  });
  expect(killed.code).not.toBe(0);
  // The crash point: SQLite has the message, history.json does not.
  expect(fileIds(home, "s1").map((r) => r.content)).toEqual(["first"]);
  expect(archive(home, "s1").rows.map((r) => r.content)).toEqual(["first", "second"]);
  // The next operation under the writer lock (another session) rolls it forward.
  expect((await cli(["add", "other", "--role", "user", "--content", "unrelated"], { home })).code).toBe(0);
  expect(fileIds(home, "s1").map((r) => r.content)).toEqual(["first", "second"]);
  expect(fileIds(home, "s1").map((r) => r.id)).toEqual(archive(home, "s1").recent);
  // The agent never got its answer and retries with the same key: the stored message comes back, nothing is added.
  const retry = await cli(
    ["add", "s1", "--role", "assistant", "--content", "second", "--idempotency-key", "k-2", "--json"],
    { home },
  );
  expect(retry.code).toBe(0);
  const out = JSON.parse(retry.stdout);
  expect(out.ids).toEqual([archive(home, "s1").rows[1]!.id]);
  expect(out.duplicates).toBe(1);
  expect(archive(home, "s1").rows).toHaveLength(2);
  expect(fileIds(home, "s1")).toHaveLength(2);
});

test("killed after the SQLite commit of a compacting write: history.json ends up compacted like SQLite", async () => {
  const home = tempHome();
  const env = { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" };
  const lines = Array.from({ length: 8 }, (_, i) =>
    JSON.stringify({ role: i % 2 ? "assistant" : "user", content: `message ${i} ${"x".repeat(600)}` }),
  ).join("\n");
  expect((await cli(["add", "c1"], { home, env, stdin: lines })).code).toBe(0);
  const before = archive(home, "c1");
  const more = Array.from({ length: 4 }, (_, i) =>
    JSON.stringify({ role: i % 2 ? "assistant" : "user", content: `later ${i} ${"y".repeat(600)}` }),
  ).join("\n");
  const killed = await cli(["add", "c1"], { home, env: { ...env, ...fault("after-archive-commit") }, stdin: more });
  expect(killed.code).not.toBe(0);
  const after = archive(home, "c1");
  expect(after.startSeq).not.toBe(before.startSeq); // SQLite's cutoff moved
  expect(fileIds(home, "c1").map((r) => r.id)).not.toEqual(after.recent); // the file did not
  const { api } = openTemp({ home, env });
  try {
    api.add("c2", { role: "user", content: "any write" });
  } finally {
    api.close();
  }
  expect(fileIds(home, "c1").map((r) => r.id)).toEqual(archive(home, "c1").recent);
  expect(fileIds(home, "c1").at(-1)!.content).toStartWith("later 3");
});

test("killed with the temp file written: the next writer removes it, and nothing else changed", async () => {
  const home = tempHome();
  expect((await cli(["add", "t1", "--role", "user", "--content", "kept"], { home })).code).toBe(0);
  const killed = await cli(["add", "t1", "--role", "user", "--content", "lost"], {
    home,
    env: fault("after-history-staged"),
  });
  expect(killed.code).not.toBe(0);
  const dir = join(home, "sessions", "t1");
  const temps = () => readdirSync(dir).filter((n) => n.endsWith(".tmp"));
  expect(temps()).toHaveLength(1);
  expect(archive(home, "t1").rows.map((r) => r.content)).toEqual(["kept"]);
  expect((await cli(["add", "u1", "--role", "user", "--content", "another session"], { home })).code).toBe(0);
  expect(temps()).toEqual([]);
  expect(fileIds(home, "t1").map((r) => r.content)).toEqual(["kept"]);
});

test("doctor --repair also removes temp files whose owner is dead", async () => {
  const home = tempHome();
  await cli(["add", "d1", "--role", "user", "--content", "kept"], { home });
  const killed = await cli(["add", "d1", "--role", "user", "--content", "lost"], {
    home,
    env: fault("after-history-staged"),
  });
  expect(killed.code).not.toBe(0);
  // Another writer's clean release hides the crash from the lock file: doctor still finds the temp file.
  const lock = join(home, ".store", "write.lock");
  Bun.write(lock, "");
  const dir = join(home, "sessions", "d1");
  expect(readdirSync(dir).filter((n) => n.endsWith(".tmp"))).toHaveLength(1);
  const r = await cli(["doctor", "--repair"], { home });
  expect(r.code).toBe(0);
  expect(readdirSync(dir).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  expect(r.stdout).toContain(".tmp");
});

test("idempotency keys in the library and in JSONL: a retried batch adds nothing", () => {
  const { api } = openTemp();
  try {
    const a = api.add("s", [
      { role: "user", content: "one", idempotencyKey: "a" },
      { role: "assistant", content: "two", idempotencyKey: "b" },
    ]);
    expect(a.duplicates).toBe(0);
    const again = api.add("s", [
      { role: "user", content: "one", idempotencyKey: "a" },
      { role: "assistant", content: "two", idempotencyKey: "b" },
      { role: "user", content: "three", idempotencyKey: "c" },
    ]);
    expect(again.ids.slice(0, 2)).toEqual(a.ids);
    expect(again.duplicates).toBe(2);
    expect(api.history("s", { all: true }).map((m) => m.content)).toEqual(["one", "two", "three"]);
    // The same key in another session is another message.
    expect(api.add("t", { role: "user", content: "one", idempotencyKey: "a" }).duplicates).toBe(0);
    expect(() => api.add("s", { role: "user", content: "x", idempotencyKey: "" })).toThrow(/idempotencyKey/);
  } finally {
    api.close();
  }
});

test("add on the command line: a removed key is reported as removed, counts never negative, ids one per line", async () => {
  const home = tempHome();
  const one = ["add", "t", "--role", "user", "--content", "s", "--idempotency-key", "key1"];
  const id = (await cli(one, { home })).stdout.trim();
  expect((await cli(["rm-message", id], { home })).code).toBe(0);
  const again = await cli(one, { home });
  expect(again).toMatchObject({ code: 0, stdout: "" });
  expect(again.stderr).toBe(
    "memvoy: add: t: not stored again: a message with this idempotency key was removed earlier\n",
  );
  const lines = ["k1", "k2", "k2", "k3"].map((k) =>
    JSON.stringify({ role: "user", content: `m-${k}`, idempotencyKey: k }),
  );
  const batch = JSON.parse((await cli(["add", "b", "--json"], { home, stdin: lines.join("\n") })).stdout);
  const k1 = batch.ids[0];
  await cli(["rm-message", k1], { home });
  const text = await cli(["add", "b"], { home, stdin: lines.join("\n") });
  expect(text.stdout).toBe(
    "added 0 messages to b (3 already stored under their idempotency key; 1 not stored again: removed earlier)\n",
  );
  const json = JSON.parse((await cli(["add", "b", "--json"], { home, stdin: lines.join("\n") })).stdout);
  expect(json).toEqual({ session: "b", ids: ["", ...batch.ids.slice(1)], duplicates: 3, removed: 1 });
});

test("a removed message's idempotency key is tombstoned: a retried add does not bring it back", async () => {
  const { api } = openTemp();
  try {
    const first = api.add("s", { role: "user", content: "keep out", idempotencyKey: "k1" });
    api.add("s", { role: "assistant", content: "stays", idempotencyKey: "k2" });
    await api.rmMessage(first.ids[0]!);
    const retried = api.add("s", { role: "user", content: "keep out", idempotencyKey: "k1" });
    expect(retried).toMatchObject({ ids: [""], duplicates: 0, removed: 1 });
    expect(api.history("s", { all: true }).map((m) => m.content)).toEqual(["stays"]);
    api.reset("s");
    expect(api.add("s", { role: "assistant", content: "stays", idempotencyKey: "k2" })).toMatchObject({
      duplicates: 0,
      removed: 1,
    });
    expect(api.add("s", { role: "user", content: "new", idempotencyKey: "k3" }).duplicates).toBe(0);
  } finally {
    api.close();
  }
});

test("killed after the SQLite commit of a write that adopted records another program appended: each is kept once", async () => {
  const home = tempHome();
  expect((await cli(["add", "s1", "--role", "user", "--content", "first"], { home })).code).toBe(0);
  const file = join(home, "sessions", "s1", "history.json");
  // Agenvoy's records: no id, an integer ns time or none at all (the same text twice).
  const records = JSON.parse(readFileSync(file, "utf8"));
  records.push({ role: "user", content: "from agenvoy", sendAt: 1796535999000000000 });
  records.push({ role: "assistant", content: "same twice" }, { role: "assistant", content: "same twice" });
  writeFileSync(file, JSON.stringify(records));
  const killed = await cli(["add", "s1", "--role", "user", "--content", "killed"], {
    home,
    env: fault("after-archive-commit"),
  });
  expect(killed.code).not.toBe(0);
  const expected = ["first", "from agenvoy", "same twice", "same twice", "killed"];
  const all = await cli(["history", "s1", "--all", "--json"], { home });
  expect(JSON.parse(all.stdout).messages.map((m: { content: string }) => m.content)).toEqual(expected);
  expect(archive(home, "s1").rows.map((r) => r.content)).toEqual(expected);
  expect(fileIds(home, "s1").map((r) => r.id)).toEqual(archive(home, "s1").recent);
  expect((await cli(["add", "s1", "--role", "user", "--content", "next"], { home })).code).toBe(0);
  expect(archive(home, "s1").rows.map((r) => r.content)).toEqual([...expected, "next"]);
  const doctor = await cli(["doctor"], { home });
  expect({ code: doctor.code, out: doctor.stdout.trim().split("\n").at(-1) }).toEqual({ code: 0, out: "all good" });
});

test("killed after the SQLite commit of a write that adopted appended records and compacted them away: kept once", async () => {
  const home = tempHome();
  const env = { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" };
  expect((await cli(["add", "s1", "--role", "user", "--content", "first"], { home, env })).code).toBe(0);
  const file = join(home, "sessions", "s1", "history.json");
  const records = JSON.parse(readFileSync(file, "utf8"));
  records.push({ role: "user", content: "from agenvoy", sendAt: 1796535999000000000 });
  writeFileSync(file, JSON.stringify(records));
  // A batch large enough to move the adopted record out of the recent tier in the same write.
  const batch = Array.from({ length: 40 }, (_, i) =>
    JSON.stringify({ role: i % 2 ? "assistant" : "user", content: `batch ${i} ${"p".repeat(200)}` }),
  ).join("\n");
  const killed = await cli(["add", "s1"], { home, env: { ...env, ...fault("after-archive-commit") }, stdin: batch });
  expect(killed.code).not.toBe(0);
  expect(
    archive(home, "s1")
      .rows.filter((r) => r.recent === 0n)
      .map((r) => r.content),
  ).toContain("from agenvoy");
  const all = await cli(["history", "s1", "--all", "--json"], { home, env });
  const contents = JSON.parse(all.stdout).messages.map((m: { content: string }) => m.content);
  expect(contents.filter((c: string) => c === "from agenvoy")).toHaveLength(1);
  expect(contents).toHaveLength(42);
  expect(fileIds(home, "s1").map((r) => r.id)).toEqual(archive(home, "s1").recent);
});

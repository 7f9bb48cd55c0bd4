// Deletion leaves no text behind: after rm, reset and rm-message no file of the home (history.json,
// history.db with its WAL and free pages, the FTS index, LanceDB) holds the removed text. rm-message is
// crash-safe: killed at any point, the message is either still whole or gone once the home is opened.
import { afterAll, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openMemory } from "../../src/app/open-memory.ts";
import { VectorStore } from "../../src/storage/lance/vector-store.ts";
import { loadLanceDb } from "../../src/storage/lance/load-lancedb.ts";
import { tryLockFile } from "../../src/shared/file-lock.ts";
import { cli, openTemp, removeTempHomes, repoRoot, tempHome, waitFor } from "../fixture/home.ts";
import { config } from "../fixture/semantic-home.ts";
import { filesHolding } from "../fixture/files-holding.ts";

afterAll(removeTempHomes);

const filler = (i: number) => `message ${i} about the deploy pipeline and its ${"ordinary ".repeat(20)}words`;

/**
 * A home with sessions a, b (vectors drained) where one message of `a` holds `secret`; returns its id. `long`: the
 * message is longer than ranking reads, so its start is kept apart too (message_starts).
 */
async function seed(home: string, secret: string, long = false): Promise<string> {
  const api = openMemory({ home, env: {}, drain: "off" });
  try {
    for (const s of ["a", "b"])
      for (let i = 0; i < 30; i++) api.add(s, { role: i % 2 ? "assistant" : "user", content: filler(i) });
    const content = `my password is ${secret} please keep it${long ? ` ${"and a long log line ".repeat(300)}` : ""}`;
    const id = api.add("a", { role: "user", content }).ids[0]!;
    for (let i = 30; i < 40; i++) api.add("a", { role: i % 2 ? "assistant" : "user", content: filler(i) });
    await api.drainEmbeddings();
    return id;
  } finally {
    api.close();
  }
}

/** Rows of the vector tables rewritten as an older memvoy wrote them: with the message text. */
async function withTextInVectors(home: string): Promise<void> {
  const api = openMemory({ home, env: {}, drain: "off" });
  const messages = [...api.history("a", { all: true }), ...api.history("b", { all: true })];
  api.close();
  const store = await VectorStore.open(join(home, ".store", "lance"));
  for (const info of await store.tables()) {
    const t = (await store.table(info.embedderId, 384))!;
    const dim = 384;
    await t.upsert(
      messages.map((m) => ({
        id: m.id,
        seq: m.seq,
        session: m.session,
        sendAt: m.sendAt,
        role: m.role,
        content: m.content,
        vector: new Float32Array(dim).fill(0.1),
      })),
    );
    t.close();
  }
  store.close();
}

test("rm-message: the text is in no file of the home afterwards, vectors included; other messages stay", async () => {
  const home = tempHome();
  const secret = "zqxjsecretword7h3k9";
  const id = await seed(home, secret, true);
  await withTextInVectors(home);
  expect(filesHolding(home, secret).length).toBeGreaterThan(0);
  const r = await cli(["rm-message", id, "--json"], { home });
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout)).toMatchObject({ id, session: "a", summarized: false, summaryRemoved: false });
  expect(filesHolding(home, secret)).toEqual([]);
  const all = JSON.parse((await cli(["history", "a", "--all", "--json"], { home })).stdout).messages as {
    id: string;
  }[];
  expect(all).toHaveLength(40);
  expect(all.some((m) => m.id === id)).toBe(false);
  const found = JSON.parse((await cli(["search", secret, "--json"], { home })).stdout);
  expect(found.hits).toHaveLength(0);
  expect(
    JSON.parse((await cli(["search", "deploy pipeline", "--session", "b", "--json"], { home })).stdout).hits.length,
  ).toBeGreaterThan(0);
  // An unknown id: exit 2, one line.
  const again = await cli(["rm-message", id], { home });
  expect(again.code).toBe(2);
  expect(again.stderr).toContain("no message");
}, 120_000);

test("reset and rm: the session's text is in no file of the home afterwards", async () => {
  for (const cmd of [
    ["reset", "a"],
    ["rm", "a"],
  ]) {
    const home = tempHome();
    const secret = `zqxj${cmd[0]}word7h3k9`;
    await seed(home, secret, cmd[0] === "reset");
    await withTextInVectors(home);
    expect(filesHolding(home, secret).length).toBeGreaterThan(0);
    const r = await cli(cmd, { home });
    expect(r.code).toBe(0);
    expect(filesHolding(home, secret)).toEqual([]);
    expect(JSON.parse((await cli(["history", "b", "--all", "--json"], { home })).stdout).messages).toHaveLength(30);
  }
}, 180_000);

/** The message vectors table of a seeded home with its vector index built (as maintenance does once it is large). */
async function indexedVectors(home: string) {
  const store = await VectorStore.open(join(home, ".store", "lance"));
  const info = (await store.tables())[0]!;
  const t = (await store.table(info.embedderId, 384))!;
  expect(await t.ensureIndex(10)).toBe(true);
  const rows: { id: string; session: string; vector: Float32Array }[] = [];
  for await (const batch of t.batches()) rows.push(...batch);
  t.close();
  return { store, embedderId: info.embedderId, rows };
}

test("rm-message, reset and rm: no LanceDB file keeps a removed row (its id, its vector), and the vector index stays", async () => {
  for (const cmd of ["rm-message", "reset", "rm"]) {
    const home = tempHome();
    const id = await seed(home, "zqxjvectorword7h3k9");
    const lance = join(home, ".store", "lance");
    const { store, embedderId, rows } = await indexedVectors(home);
    const bytes = (v: Float32Array) => new Uint8Array(v.buffer, v.byteOffset, 64).slice();
    // Sessions a and b share their filler texts: a vector that a kept message also has is no test.
    const removed = rows.filter((r) => (cmd === "rm-message" ? r.id === id : r.session === "a"));
    const keptBytes = new Set(rows.filter((r) => !removed.includes(r)).map((r) => bytes(r.vector).join()));
    const unique = removed.filter((r) => !keptBytes.has(bytes(r.vector).join()));
    expect(unique.length).toBeGreaterThan(0);
    for (const r of unique.slice(0, 3)) expect(filesHolding(lance, bytes(r.vector)).length).toBeGreaterThan(0);
    const r = await cli(cmd === "rm-message" ? [cmd, id] : [cmd, "a"], { home });
    expect(r.code).toBe(0);
    const left = [
      ...removed.flatMap((m) => filesHolding(lance, m.id)),
      ...unique.flatMap((m) => filesHolding(lance, bytes(m.vector))),
    ];
    expect({ cmd, left }).toEqual({ cmd, left: [] });
    const t = (await store.table(embedderId, 384))!;
    expect(await t.hasIndex()).toBe(true);
    const kept = rows.filter((m) => !removed.includes(m));
    expect((await t.keys()).map((k) => k.id).sort()).toEqual(kept.map((m) => m.id).sort());
    expect((await t.search(kept[5]!.vector, {}, 1))[0]!.id).toBe(kept[5]!.id);
    t.close();
    store.close();
  }
}, 180_000);

/** Files 0600 and folders 0700 under `dir`. */
function privateTree(dir: string): void {
  chmodSync(dir, 0o700);
  for (const e of readdirSync(dir, { withFileTypes: true }))
    if (e.isDirectory()) privateTree(join(dir, e.name));
    else chmodSync(join(dir, e.name), 0o600);
}

/** Make the home's vector table as an earlier memvoy did (row ids are addresses), with its vector index built. */
async function asEarlierTable(home: string): Promise<void> {
  const { lancedb, arrow } = await loadLanceDb();
  const conn = await lancedb.connect(join(home, ".store", "lance"));
  const name = (await conn.tableNames())[0]!;
  const old = await conn.openTable(name);
  const rows = await old.query().toArrow();
  const schema = await old.schema();
  old.close();
  await conn.dropTable(name);
  const metadata = new Map([...schema.metadata].filter(([k]) => k !== "memvoy.stable_row_ids"));
  const t = await conn.createEmptyTable(name, new arrow.Schema(schema.fields, metadata));
  await t.add(rows);
  await t.createIndex("vector", { config: lancedb.Index.hnswSq({ distanceType: "cosine" }) });
  t.close();
}

test("rm-message on a vector table an earlier memvoy made, index built: it says its data file keeps the vector until reindex", async () => {
  const home = tempHome();
  const id = await seed(home, "zqxjearlierword7h3k9");
  await asEarlierTable(home);
  const r = await cli(["rm-message", id], { home });
  expect(r.code).toBe(0);
  expect(r.stderr.trim()).toBe(
    "memvoy: the vector table was made by an earlier memvoy: its data file keeps the removed messages' vectors (not their text) until `memvoy reindex` rebuilds it",
  );
  expect((await cli(["reindex"], { home })).code).toBe(0);
  const { rows } = await indexedVectors(home);
  const other = await cli(["rm-message", rows[3]!.id], { home });
  expect(other.code).toBe(0);
  expect(other.stderr).toBe("");
}, 180_000);

test("doctor names a vector table an earlier memvoy made with its index built, in text and --json, until reindex", async () => {
  const home = tempHome();
  await seed(home, "zqxjdoctorword7h3k9");
  expect((await cli(["doctor"], { home })).code).toBe(0);
  await asEarlierTable(home);
  privateTree(join(home, ".store", "lance")); // as memvoy leaves what it writes
  const name = (
    await (await loadLanceDb()).lancedb.connect(join(home, ".store", "lance")).then((c) => c.tableNames())
  )[0]!;
  const problem = `vector table ${name} was made by an earlier memvoy: removed messages' vectors stay in its files; memvoy reindex rebuilds it with stable row ids`;
  const text = await cli(["doctor"], { home });
  expect({ code: text.code, stderr: text.stderr }).toEqual({ code: 1, stderr: "" });
  expect(text.stdout).toContain(`\n${problem}\n`);
  expect(text.stdout).toContain("problems left that --repair does not change; each says what to do");
  const json = await cli(["doctor", "--json"], { home });
  expect(json.code).toBe(1);
  const report = JSON.parse(json.stdout);
  expect({ ok: report.ok, findings: report.findings }).toEqual({ ok: false, findings: [{ problem, manual: true }] });
  const repair = await cli(["doctor", "--repair"], { home });
  expect(repair.code).toBe(1);
  expect(repair.stdout).toContain(problem);
  expect((await cli(["reindex"], { home })).code).toBe(0);
  const after = await cli(["doctor"], { home });
  expect({ code: after.code, out: after.stdout.trim().split("\n").at(-1) }).toEqual({ code: 0, out: "all good" });
}, 180_000);

/** Where each vector row is stored: its row address (fragment id above the offset in it). */
async function rowAddresses(home: string): Promise<Map<string, bigint>> {
  const { lancedb } = await loadLanceDb();
  const conn = await lancedb.connect(join(home, ".store", "lance"));
  const t = await conn.openTable((await conn.tableNames())[0]!);
  const rows = (await t.query().select(["id", "_rowaddr"]).toArray()) as { id: string; _rowaddr: bigint }[];
  t.close();
  return new Map(rows.map((r) => [r.id, BigInt(r._rowaddr)]));
}

test("the vectors of messages the window's compaction archived are deleted without rewriting the rows kept", async () => {
  const { home, api } = openTemp({ config: config({ limits: { max_history_bytes: 4096 } }), drain: "off" });
  try {
    const add = (i: number) =>
      api.add("s", { role: i % 2 ? "assistant" : "user", content: `note ${i} ${"word ".repeat(40)}` });
    for (let i = 0; i < 12; i++) add(i);
    await api.drainEmbeddings();
    const before = await rowAddresses(home);
    for (let i = 12; i < 20; i++) add(i);
    await api.drainEmbeddings();
    const after = await rowAddresses(home);
    const kept = [...before.keys()].filter((id) => after.has(id));
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(before.size); // the compaction deleted some
    expect(kept.map((id) => after.get(id))).toEqual(kept.map((id) => before.get(id)));
  } finally {
    api.close();
  }
}, 120_000);

test("reset and rm leave no copy that SQLite kept when it rebalanced a page (compaction moving rows out of the recent tier)", async () => {
  const home = tempHome();
  const api = openMemory({ home, env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "8192" }, drain: "off" });
  const batch = (word: string) =>
    Array.from({ length: 400 }, (_, i) => ({
      role: (i % 2 ? "assistant" : "user") as "user" | "assistant",
      content: `${word} ${String(i).padStart(3, "0")} ${"z".repeat(150)}`,
    }));
  try {
    for (let r = 0; r < 12; r++) {
      const secret = `qvzx${String(r).padStart(2, "0")}secret`;
      api.add(`s${r}`, batch(secret));
      api.add(`k${r}`, batch("kept"));
      if (r % 2 === 0) api.reset(`s${r}`);
      else api.remove(`s${r}`);
      expect({ round: r, files: filesHolding(home, secret) }).toEqual({ round: r, files: [] });
    }
  } finally {
    api.close();
  }
}, 180_000);

test("rm-message of a summarized message says so; --drop-summary removes the summary", async () => {
  const home = tempHome();
  const api = openMemory({ home, env: {}, drain: "off" });
  const ids = api.add("s", [
    { role: "user", content: "first question" },
    { role: "assistant", content: "first answer" },
  ]).ids;
  api.importSummary("s", {
    key_decisions: ["Do: answer"],
    past_discussions: [],
    current_discussion: { topic: "t", description: "d", perspectives: "", direction: "" },
  });
  const later = api.add("s", { role: "user", content: "later question" }).ids[0]!;
  api.close();
  let r = await cli(["rm-message", later], { home });
  expect(r.stdout).not.toContain("already summarized");
  r = await cli(["rm-message", ids[0]!], { home });
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("already summarized");
  expect(existsSync(join(home, "sessions", "s", "summary.json"))).toBe(true);
  r = await cli(["rm-message", ids[1]!, "--drop-summary", "--json"], { home });
  expect(JSON.parse(r.stdout)).toMatchObject({ summarized: true, summaryRemoved: true });
  expect(existsSync(join(home, "sessions", "s", "summary.json"))).toBe(false);
  expect(existsSync(join(home, "sessions", "s", ".summary_cursor"))).toBe(false);
}, 60_000);

test("a removed message id cannot come back: an old history.json put back after a reset is not re-adopted", async () => {
  const home = tempHome();
  const api = openMemory({ home, env: {}, drain: "off" });
  api.add("s", [
    { role: "user", content: "tombstoned question" },
    { role: "assistant", content: "tombstoned answer" },
  ]);
  const stale = readFileSync(join(home, "sessions", "s", "history.json"));
  api.reset("s");
  writeFileSync(join(home, "sessions", "s", "history.json"), stale); // a backup restored by hand
  api.add("s", { role: "user", content: "a new start" });
  expect(api.history("s", { all: true }).map((m) => m.content)).toEqual(["a new start"]);
  expect(readFileSync(join(home, "sessions", "s", "history.json"), "utf8")).not.toContain("tombstoned");
  api.close();
}, 60_000);

test("an old history.json put back after rm-message: the next write rewrites it without the message; doctor repairs it", async () => {
  const home = tempHome();
  const file = join(home, "sessions", "s", "history.json");
  const api = openMemory({ home, env: {}, drain: "off" });
  try {
    const [gone] = api.add("s", [
      { role: "user", content: "my password is RESTORED-SECRET" },
      { role: "assistant", content: "ok" },
    ]).ids;
    const stale = readFileSync(file);
    await api.rmMessage(gone!);
    writeFileSync(file, stale); // a backup or a sync tool puts it back
    expect(api.history("s").map((m) => m.content)).toEqual(["ok"]);
    api.add("s", { role: "user", content: "later" });
    expect(readFileSync(file, "utf8")).not.toContain("RESTORED-SECRET");
    expect(api.history("s", { all: true }).map((m) => m.content)).toEqual(["ok", "later"]);
    // Put back again with no write since: doctor names the removed message and rewrites the file without it.
    writeFileSync(file, stale);
    const report = api.doctor();
    expect(report.ok).toBe(false);
    expect(report.findings.map((f) => f.problem).join("\n")).toContain(`1 removed message(s) (${gone})`);
    expect(api.doctor({ repair: true }).ok).toBe(true);
    expect(readFileSync(file, "utf8")).not.toContain("RESTORED-SECRET");
    expect(api.doctor().ok).toBe(true);
    expect(filesHolding(join(home, "sessions"), "RESTORED-SECRET")).toEqual([]);
  } finally {
    api.close();
  }
}, 60_000);

test("rm-message killed at a random point: the message is whole or, once the home is opened, gone", async () => {
  for (let round = 0; round < 6; round++) {
    const home = tempHome();
    const secret = `zqxjkill${round}word`;
    const id = await seed(home, secret);
    const proc = Bun.spawn(["bun", join(repoRoot, "src/index.ts"), "--home", home, "rm-message", id], {
      env: { PATH: process.env.PATH!, HOME: home, TZ: "UTC" },
      stdout: "ignore",
      stderr: "ignore",
    });
    const delay = 50 + Math.floor(Math.random() * 600);
    const timer = setTimeout(() => proc.kill(9), delay);
    await proc.exited;
    clearTimeout(timer);
    // Any command opens the home (and finishes an interrupted removal).
    const all = JSON.parse((await cli(["history", "a", "--all", "--json"], { home })).stdout).messages as {
      id: string;
      content: string;
    }[];
    const file = readFileSync(join(home, "sessions", "a", "history.json"), "utf8");
    const present = all.some((m) => m.id === id);
    expect(file.includes(secret)).toBe(present); // never in one store and not the other
    if (present) {
      expect(all).toHaveLength(41);
      expect((await cli(["rm-message", id], { home })).code).toBe(0);
    } else expect(all).toHaveLength(40);
    const left = filesHolding(home, secret).filter((f) => !f.startsWith(".store/lance"));
    expect(left).toEqual([]);
  }
}, 300_000);

test("reset, reset --all and rm killed right after their archive commit: the next command, on another session, finishes them", async () => {
  for (const args of [["reset"], ["reset", "--all"], ["rm"]]) {
    const home = tempHome();
    const secret = `zqxjreset${args.join("")}word`;
    await seed(home, secret);
    writeFileSync(join(home, "sessions", "a", "summary.json"), JSON.stringify({ key_decisions: [] }));
    const killed = await cli([...args, "a"], { home, env: { MEMVOY_TEST_FAULT: "after-deletion-commit" } });
    expect(killed.code).not.toBe(0);
    expect(filesHolding(home, secret).length).toBeGreaterThan(0); // killed with the text still on disk
    // An ordinary command on another session opens the home and finishes the deletion.
    expect((await cli(["history", "b"], { home })).code).toBe(0);
    expect({ args, left: filesHolding(home, secret).filter((f) => !f.startsWith(".store/lance")) }).toEqual({
      args,
      left: [],
    });
    const a = await cli(["history", "a", "--all", "--json"], { home });
    if (args[0] === "rm") {
      expect(a.code).toBe(2);
      expect(existsSync(join(home, "sessions", "a"))).toBe(false);
    } else {
      expect(JSON.parse(a.stdout).messages).toEqual([]);
      expect(existsSync(join(home, "sessions", "a", "summary.json"))).toBe(args[1] !== "--all");
    }
    const b = JSON.parse((await cli(["history", "b", "--all", "--json"], { home })).stdout).messages;
    expect(b).toHaveLength(30);
  }
}, 120_000);

test("a killed reset whose finishing fails (a folder in place of history.json) leaves the home usable, and is finished once it can be", async () => {
  const home = tempHome();
  const secret = "zqxjstuckresetword";
  await seed(home, secret);
  const killed = await cli(["reset", "a"], { home, env: { MEMVOY_TEST_FAULT: "after-deletion-commit" } });
  expect(killed.code).not.toBe(0);
  const file = join(home, "sessions", "a", "history.json");
  rmSync(file);
  mkdirSync(file);
  const other = await cli(["history", "b", "--json"], { home });
  expect({ code: other.code, stderr: other.stderr }).toEqual({ code: 0, stderr: "" });
  expect((await cli(["add", "b", "--role", "user", "--content", "still writable"], { home })).code).toBe(0);
  rmSync(file, { recursive: true });
  expect((await cli(["history", "b"], { home })).code).toBe(0);
  expect(filesHolding(home, secret).filter((f) => !f.startsWith(".store/lance"))).toEqual([]);
}, 60_000);

test("reset waits for no drain that lingers for more writes: the drain lets the deletion have the vector lock, then goes on", async () => {
  const home = tempHome();
  const api = openMemory({ home, env: {}, drain: "off" });
  try {
    api.add("a", { role: "user", content: "first message about deploys" });
    api.add("b", { role: "user", content: "another session" });
    await api.drainEmbeddings();
    // A drain holding the vector write lock while it waits a minute for more writes (a steady stream of writers
    // keeps one so forever).
    const stop = new AbortController();
    const lingering = api.drainEmbeddings({ lingerMs: 60_000, signal: stop.signal }).catch(() => undefined);
    await waitFor(() => {
      const release = tryLockFile(join(home, ".store", "embed.lock"));
      release?.();
      return release === undefined;
    });
    const started = performance.now();
    const r = await cli(["reset", "a"], { home });
    expect(r.code).toBe(0);
    expect(performance.now() - started).toBeLessThan(30_000);
    // The drain took the lock back and still embeds what is written after.
    api.add("b", { role: "user", content: "written while the drain lingers" });
    await waitFor(() => api.embeddingBacklog().queued === 0, 20_000, "the lingering drain to embed the new message");
    stop.abort();
    await lingering;
  } finally {
    api.close();
  }
}, 90_000);

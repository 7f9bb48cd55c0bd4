// A full disk (a small tmpfs; root only, skipped with the reason otherwise): a JSONL batch is all or nothing,
// SQLite's "disk I/O error" on a nearly full disk is the no-space message, summarize reports what it saved, and
// output that cannot be written is one error line.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { closeSync, existsSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openMemory } from "../../src/app/open-memory.ts";
import { startFakeAnthropic, type FakeAnthropic } from "../fixture/fake-anthropic.ts";
import { cli, repoRoot } from "../fixture/home.ts";
import { mountTmpfs, tmpfsAvailable, type Tmpfs } from "./tmpfs.ts";

const available = tmpfsAvailable();
let fs: Tmpfs;
beforeAll(() => {
  if (available) fs = mountTmpfs(12 * 1024);
});
afterAll(() => fs?.unmount());
// A failed test must not leave the disk full for the next one.
afterEach(() => fs?.leaveFree(64 * 1024 * 1024));

function storedCount(home: string, session: string): number {
  const path = join(home, ".store", "history.db");
  if (!existsSync(path)) return 0;
  const db = new Database(path, { readonly: true });
  try {
    return (db.query("SELECT count(*) AS n FROM messages WHERE session_id = ?").get(session) as { n: number }).n;
  } finally {
    db.close();
  }
}

const jsonl = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      role: i % 2 ? "assistant" : "user",
      content: `${tag} line ${i} about the deploy ${"x".repeat(60)}`,
    }),
  ).join("\n");

describe.skipIf(!available)("full disk", () => {
  test("a JSONL batch over 5,000 lines is stored all or nothing at every fill level", async () => {
    // The last 1,000 lines are large: a batch cut in parts of 5,000 would store the first part and then fail.
    const big = Array.from({ length: 1000 }, (_, i) =>
      JSON.stringify({ role: i % 2 ? "assistant" : "user", content: `large ${i} ${"y".repeat(4000)}` }),
    ).join("\n");
    const lines = `${jsonl(5000, "batch")}\n${big}`;
    const outcomes = new Set<string>();
    for (const freeKiB of [5000, 1500]) {
      const home = join(fs.dir, `batch-${freeKiB}`);
      expect((await cli(["add", "seed", "--role", "user", "--content", "seed"], { home })).code).toBe(0);
      fs.leaveFree(freeKiB * 1024);
      const r = await cli(["add", "big", "--json"], { home, stdin: lines });
      const stored = storedCount(home, "big");
      const inFile = existsSync(join(home, "sessions", "big", "history.json"))
        ? JSON.parse(readFileSync(join(home, "sessions", "big", "history.json"), "utf8")).length
        : 0;
      if (r.code === 0) {
        expect([stored, inFile]).toEqual([6000, 6000]);
        outcomes.add("stored");
      } else {
        expect(r.code).toBe(1);
        expect([stored, inFile]).toEqual([0, 0]);
        expect(r.stderr).toContain("no space left on the device");
        expect(r.stderr).toContain("nothing was changed");
        outcomes.add("refused");
      }
      fs.leaveFree(64 * 1024 * 1024);
      rmSync(home, { recursive: true, force: true });
    }
    expect(outcomes.has("refused")).toBe(true);
  });

  test("with 16 KiB or less free, commands say no space and nothing changed, never 'disk I/O error'", async () => {
    const home = join(fs.dir, "nearly-full");
    expect((await cli(["add", "s1", "--role", "user", "--content", "hello"], { home })).code).toBe(0);
    let added = 1;
    for (const freeKiB of [16, 8, 0]) {
      fs.leaveFree(freeKiB * 1024);
      for (const args of [["sessions"], ["history", "s1"], ["add", "s1", "--role", "user", "--content", "more"]]) {
        const r = await cli(args, { home });
        if (r.code === 0) {
          if (args[0] === "add") added++;
          continue; // it fitted
        }
        expect(r.code).toBe(1);
        expect(r.stderr).not.toContain("disk I/O error");
        expect(r.stderr).toContain("no space left on the device");
        expect(r.stderr).toContain("nothing was changed");
      }
    }
    fs.leaveFree(64 * 1024 * 1024);
    expect(storedCount(home, "s1")).toBe(added);
    rmSync(home, { recursive: true, force: true });
  });

  test("an add to a new session that fails for space leaves no empty session behind", async () => {
    const home = join(fs.dir, "new-session");
    expect((await cli(["add", "seed"], { home, stdin: jsonl(300, "seed") })).code).toBe(0);
    let refused = 0;
    for (const freeKiB of [256, 64, 16]) {
      fs.leaveFree(freeKiB * 1024);
      const r = await cli(["add", `new-${freeKiB}`, "--role", "user"], { home, stdin: "z".repeat(300 * 1024) });
      fs.leaveFree(64 * 1024 * 1024);
      if (r.code === 0) continue; // it fitted
      refused++;
      expect(r.stderr).toContain("nothing was changed");
      expect(existsSync(join(home, "sessions", `new-${freeKiB}`))).toBe(false);
    }
    expect(refused).toBeGreaterThan(0);
    const listed = JSON.parse((await cli(["sessions", "--json"], { home })).stdout).map((x: { id: string }) => x.id);
    expect(listed).toEqual(["seed"]);
    rmSync(home, { recursive: true, force: true });
  });

  test("history, context and search of a session another program appended to still answer from the archive on a full disk", async () => {
    const home = join(fs.dir, "foreign-append");
    for (const content of ["first about the deploy", "second about the deploy"])
      expect((await cli(["add", "s1", "--role", "user", "--content", content], { home })).code).toBe(0);
    const file = join(home, "sessions", "s1", "history.json");
    const records = JSON.parse(readFileSync(file, "utf8"));
    // Too large for the room left: adopting it (a new history.json, the archive rows) fails for space.
    const content = `from agenvoy about the deploy ${"z".repeat(600_000)}`;
    records.push({ role: "assistant", content, sendAt: 1796535999000000000 });
    writeFileSync(file, JSON.stringify(records));
    fs.leaveFree(128 * 1024);
    for (const args of [
      ["history", "s1"],
      ["context", "s1"],
      ["search", "deploy", "--session", "s1", "--match", "keyword"],
    ]) {
      const r = await cli(args, { home });
      expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: "" });
      expect(r.stdout).toContain("second about the");
    }
    rmSync(home, { recursive: true, force: true });
  });

  test("semantic search on a full disk searches what is indexed when it cannot index the newest messages", async () => {
    const home = join(fs.dir, "search-drain");
    const api = openMemory({ home, env: {}, drain: "off" });
    const turns = (n: number, tag: string) =>
      Array.from({ length: n }, (_, i) => ({
        role: i % 2 ? ("assistant" as const) : ("user" as const),
        content: `${tag} ${i} about the walrus migration`,
      }));
    api.add("s", turns(20, "indexed"));
    await api.drainEmbeddings();
    api.add("s", turns(3000, "queued"));
    api.close();
    fs.leaveFree(512 * 1024);
    const r = await cli(["search", "indexed 7 about the walrus migration", "--match", "semantic", "--json"], { home });
    fs.leaveFree(64 * 1024 * 1024);
    expect(r.stderr).not.toContain("no space left");
    expect(r.code).toBe(0);
    const found = JSON.parse(r.stdout);
    expect(found.hits.length).toBeGreaterThan(0);
    expect(found.notIndexed).toBeGreaterThan(0);
    rmSync(home, { recursive: true, force: true });
  });

  test("a rebuild of a broken history.db that fails for space leaves no partial rebuild behind", async () => {
    const home = join(fs.dir, "broken-rebuild");
    const api = openMemory({ home, env: {}, drain: "off" });
    api.add(
      "s",
      Array.from({ length: 300 }, (_, i) => ({
        role: i % 2 ? ("assistant" as const) : ("user" as const),
        content: `message ${i} about the deploy ${"z".repeat(300)}`,
      })),
    );
    api.close();
    const db = join(home, ".store", "history.db");
    const writer = new Database(db);
    writer.run("PRAGMA wal_checkpoint(TRUNCATE)");
    writer.close();
    const fd = openSync(db, "r+");
    for (let page = 2; page * 4096 < Bun.file(db).size; page += 3)
      writeSync(fd, Buffer.alloc(4096, 0x5a), 0, 4096, page * 4096);
    closeSync(fd);
    const store = () => readdirSync(join(home, ".store")).filter((n) => n.includes(".rebuilding"));

    fs.leaveFree(400 * 1024);
    const before = fs.free();
    const r = await cli(["doctor", "--repair", "--yes"], { home });
    const after = fs.free();
    fs.leaveFree(64 * 1024 * 1024);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("no space left on the device");
    expect(r.stderr).toContain("nothing was changed");
    expect(store()).toEqual([]);
    expect(after).toBeGreaterThanOrEqual(before - 64 * 1024);

    const repaired = await cli(["doctor", "--repair", "--yes"], { home });
    expect(repaired.code).toBe(0);
    expect(repaired.stdout).toContain("rebuilt the archive");
    rmSync(home, { recursive: true, force: true });
  });

  test("an import that fails for space after storing part of a file says what it stored, never 'nothing was changed'", async () => {
    const file = join(tmpdir(), `memvoy-import-${process.pid}.jsonl`);
    const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString().replace("Z", "000000Z");
    const lines = [JSON.stringify({ type: "session", id: "imp" })];
    for (let i = 0; i < 12_000; i++)
      lines.push(
        JSON.stringify({
          type: "message",
          id: `01KA${String(i).padStart(22, "0")}`,
          session: "imp",
          role: i % 2 ? "assistant" : "user",
          content: `imported line ${i} ${"q".repeat(200)}`,
          sendAt: at(i),
        }),
      );
    await Bun.write(file, `${lines.join("\n")}\n`);
    let partial = 0;
    try {
      for (const freeKiB of [4000, 6000, 8000]) {
        const home = join(fs.dir, `import-${freeKiB}`);
        expect((await cli(["add", "seed", "--role", "user", "--content", "seed"], { home })).code).toBe(0);
        fs.leaveFree(freeKiB * 1024);
        const r = await cli(["import", "jsonl", file], { home });
        fs.leaveFree(64 * 1024 * 1024);
        const stored = storedCount(home, "imp");
        if (r.code !== 0 && stored > 0) {
          partial++;
          expect(r.stderr).toContain(
            `${stored} message(s) of it were stored before it failed, and a new run adds the rest`,
          );
          expect(r.stderr).not.toContain("nothing was changed");
        } else if (r.code !== 0) expect(r.stderr).toContain("nothing was changed");
        rmSync(home, { recursive: true, force: true });
      }
    } finally {
      rmSync(file, { force: true });
    }
    expect(partial).toBeGreaterThan(0);
  });

  test("a reset whose clean-up fails for space after its commit says what it removed, never 'nothing was changed'", async () => {
    const home = join(fs.dir, "reset-full");
    const api = openMemory({ home, env: {}, drain: "off" });
    const batch = (tag: string, n: number) =>
      Array.from({ length: n }, (_, i) => ({
        role: (i % 2 ? "assistant" : "user") as "user" | "assistant",
        content: `${tag} ${i} about the deploy ${"w".repeat(80)}`,
      }));
    api.add("keep", batch("kept", 6000));
    api.close();
    const outcomes = new Set<string>();
    for (const freeKiB of [2000, 1500, 1200, 1000, 800, 600, 400, 200]) {
      const session = `gone-${freeKiB}`;
      const seed = openMemory({ home, env: {}, drain: "off" });
      seed.add(session, batch(session, 300));
      seed.close();
      fs.leaveFree(freeKiB * 1024);
      const r = await cli(["reset", session], { home });
      fs.leaveFree(64 * 1024 * 1024);
      const left = storedCount(home, session);
      if (r.code === 0) outcomes.add("done");
      else if (left === 300) {
        expect(r.stderr).toContain("nothing was changed");
        outcomes.add("refused");
      } else {
        expect([left, r.code]).toEqual([0, 1]);
        expect(r.stderr).not.toContain("nothing was changed");
        expect(r.stderr).toContain(
          `reset ${session}: 300 message(s) removed, but removing every copy of their text failed`,
        );
        expect(r.stderr).toContain("no space left on the device");
        outcomes.add("unfinished");
      }
      // The next command finishes it once there is room.
      expect((await cli(["history", session, "--json"], { home })).code).toBe(0);
    }
    expect(outcomes.has("unfinished")).toBe(true);
    rmSync(home, { recursive: true, force: true });
  });

  test("an rm-message whose clean-up fails for space after the removal is recorded never says 'nothing was changed'", async () => {
    const home = join(fs.dir, "rm-message-full");
    const api = openMemory({ home, env: {}, drain: "off" });
    const ids = api.add(
      "s",
      Array.from({ length: 300 }, (_, i) => ({
        role: (i % 2 ? "assistant" : "user") as "user" | "assistant",
        content: `message ${i} about the deploy ${"w".repeat(300)}`,
      })),
    ).ids;
    api.close();
    const outcomes = new Set<string>();
    let next = ids.length - 1;
    for (const freeKiB of [400, 200, 128, 96, 64, 48, 32, 0]) {
      const id = ids[next]!;
      fs.leaveFree(freeKiB * 1024);
      const r = await cli(["rm-message", id], { home });
      fs.leaveFree(64 * 1024 * 1024);
      const history = await cli(["history", "s", "--all", "--json"], { home }); // finishes a recorded removal
      const stored = JSON.parse(history.stdout).messages.map((m: { id: string }) => m.id);
      if (r.code === 0) outcomes.add("done");
      else if (stored.includes(id)) {
        expect(r.stderr).toContain("nothing was changed");
        outcomes.add("refused");
        continue;
      } else {
        expect(r.code).toBe(1);
        expect(r.stderr).not.toContain("nothing was changed");
        expect(r.stderr).toContain("rm-message s: 1 message(s) removed, but removing every copy of their text failed");
        outcomes.add("unfinished");
      }
      expect(stored).not.toContain(id);
      next--;
    }
    expect(outcomes.has("unfinished")).toBe(true);
    rmSync(home, { recursive: true, force: true });
  });

  test("an error recorded whose vector cannot be written for space is kept, and its note never says 'nothing was changed'", async () => {
    const home = join(fs.dir, "errors-full");
    const record = (w: string) =>
      cli(
        ["errors", "record", "--tool", "npm", "--error", `${w} module failed to load from ${w}-cache`, "--fix", "x"],
        {
          home,
        },
      );
    expect((await record("kilo")).code).toBe(0);
    const outcomes = new Set<string>();
    // The archive takes the record in a few KiB; the vector store's files need more: a level between the two.
    // Up to 23 levels of two processes each (a record loads LanceDB and the embedder): near a minute when loaded.
    for (let freeKiB = 128; freeKiB >= 40 && !outcomes.has("without a vector"); freeKiB -= 4) {
      const word = `w${String.fromCharCode(97 + (freeKiB % 26))}${String.fromCharCode(97 + Math.floor(freeKiB / 26))}q`;
      fs.leaveFree(freeKiB * 1024);
      const r = await record(word);
      fs.leaveFree(64 * 1024 * 1024);
      const listed = (await cli(["errors", "list"], { home })).stdout.includes(`${word} module failed`);
      if (r.code !== 0) {
        expect(r.stderr).toContain("nothing was changed");
        expect(listed).toBe(false);
        continue;
      }
      expect(listed).toBe(true);
      if (!r.stderr.includes("recorded without a vector")) continue;
      expect(r.stderr).toContain("no space left on the device");
      expect(r.stderr).not.toContain("nothing was changed");
      outcomes.add("without a vector");
    }
    expect(outcomes.has("without a vector")).toBe(true);
    rmSync(home, { recursive: true, force: true });
  }, 180_000);

  describe("summarize", () => {
    let fake: FakeAnthropic;
    beforeAll(async () => {
      fake = await startFakeAnthropic();
      fake.respond(() => ({
        json: {
          key_decisions: ["Do: keep going"],
          past_discussions: [],
          current_discussion: { topic: "deploy", description: "d", perspectives: "", direction: "" },
        },
        tag: "summary",
      }));
    });
    afterAll(() => fake.stop());

    test("never says nothing was changed once summary.json and the cursor are written", async () => {
      let savedSeen = 0;
      for (let freeKiB = 8; freeKiB <= 120; freeKiB += 8) {
        const home = join(fs.dir, `sum-${freeKiB}`);
        const env = {
          ANTHROPIC_API_KEY: fake.apiKey,
          ANTHROPIC_BASE_URL: fake.url,
          MEMVOY_SUMMARY_CHUNK_CHARS: "1000",
        };
        const setup = openMemory({ home, env, drain: "off" });
        setup.add(
          "s1",
          Array.from({ length: 12 }, (_, i) => ({
            role: i % 2 ? ("assistant" as const) : ("user" as const),
            content: `turn ${i} ${"about the deploy ".repeat(20)}`,
          })),
        );
        setup.close();
        fs.leaveFree(freeKiB * 1024);
        let report: Awaited<ReturnType<ReturnType<typeof openMemory>["summarize"]>> | undefined;
        let thrown: unknown;
        try {
          const api = openMemory({ home, env, drain: "off" });
          try {
            report = await api.summarize("s1");
          } finally {
            api.close();
          }
        } catch (err) {
          thrown = err;
        }
        const saved = existsSync(join(home, "sessions", "s1", "summary.json"));
        if (saved) {
          savedSeen++;
          expect(thrown).toBeUndefined();
          const s = report!.sessions[0]!;
          expect(s.chunksDone).toBeGreaterThan(0);
          expect(s.error ?? "").not.toContain("nothing was changed");
          expect(existsSync(join(home, "sessions", "s1", ".summary_cursor"))).toBe(true);
        } else if (thrown) {
          expect(String(thrown)).toContain("no space left on the device");
        } else {
          expect(report!.sessions[0]!.chunksDone).toBe(0);
        }
        fs.leaveFree(64 * 1024 * 1024);
        rmSync(home, { recursive: true, force: true });
      }
      expect(savedSeen).toBeGreaterThan(0);
    });
  });
});

// /dev/full: every write fails with ENOSPC (Linux; no mount needed).
test.skipIf(process.platform !== "linux")(
  "--json output that cannot be written (a full disk) is one error line on stderr with exit 1, not a stack trace",
  async () => {
    const home = join(tmpdir(), `memvoy-full-stdout-${process.pid}`);
    expect((await cli(["add", "s", "--role", "user", "--content", "hello"], { home })).code).toBe(0);
    for (const args of [
      ["history", "s", "--json"],
      ["sessions", "--json"],
    ]) {
      const full = openSync("/dev/full", "w");
      const proc = Bun.spawn(["bun", join(repoRoot, "src/index.ts"), "--home", home, ...args], {
        env: { PATH: process.env.PATH!, HOME: home, TZ: "UTC" },
        stdout: full,
        stderr: "pipe",
      });
      const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
      closeSync(full);
      expect({ args, code }).toEqual({ args, code: 1 });
      expect(stderr).toStartWith("memvoy: could not write the output to stdout (ENOSPC");
      expect(stderr.trimEnd().split("\n")).toHaveLength(1);
    }
    rmSync(home, { recursive: true, force: true });
  },
);

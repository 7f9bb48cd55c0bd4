// A home on a read-only file system (a tmpfs remounted read-only; root only, skipped with the reason otherwise):
// every command says that the archive's folder is read-only, naming the file, instead of SQLite's bare
// "unable to open database file" or an error removing a config-cache temp file; so does an archive file owned by
// another user.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openMemory } from "../../src/app/open-memory.ts";
import { startFakeAnthropic } from "../fixture/fake-anthropic.ts";
import { cli, repoRoot } from "../fixture/home.ts";
import { processOutput } from "../fixture/process-output.ts";
import { current, summaryStep } from "../fixture/summary-home.ts";
import { mountTmpfs, tmpfsAvailable, type Tmpfs } from "./tmpfs.ts";

const available = tmpfsAvailable();
let fs: Tmpfs | undefined;
afterAll(() => fs?.unmount());

describe.skipIf(!available)("read-only home", () => {
  test("each command names history.db and the read-only file system, with exit code 2", async () => {
    fs = mountTmpfs(4 * 1024);
    const home = join(fs.dir, "home");
    expect((await cli(["add", "s1", "--role", "user", "--content", "hello"], { home })).code).toBe(0);
    const remount = Bun.spawnSync(["mount", "-o", "remount,ro", fs.dir]);
    expect(remount.exitCode).toBe(0);
    for (const args of [["add", "s1", "--role", "user", "--content", "x"], ["history", "s1"], ["sessions"]]) {
      const r = await cli(args, { home });
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr.trim()).toBe(
        `memvoy: cannot open ${join(home, ".store", "history.db")}: its folder is on a read-only file system; memvoy writes to its home, even to read it`,
      );
    }
  });
});

// Another user's history.db in the home (a command once run with sudo): root makes it, another user opens it.
const asNobody = process.getuid?.() === 0 && Bun.which("setpriv") !== null;
/** memvoy from source as uid 65534 (nobody), in `dir`, with HOME there. */
const runAsNobody = (dir: string, args: string[]) =>
  Bun.spawnSync(
    ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "bun", join(repoRoot, "src/index.ts"), ...args],
    { env: { PATH: process.env.PATH!, HOME: dir, TZ: "UTC" }, cwd: dir },
  );
test.skipIf(!asNobody)(
  "an archive file this user may not open is named with the permission problem, exit 2",
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "memvoy-other-user-"));
    try {
      chmodSync(dir, 0o755);
      const home = join(dir, "home");
      expect((await cli(["add", "s1", "--role", "user", "--content", "hello"], { home })).code).toBe(0);
      Bun.spawnSync(["chown", "-R", "65534:65534", home]);
      Bun.spawnSync(["chown", "0:0", join(home, ".store", "history.db")]);
      const r = runAsNobody(dir, ["--home", home, "sessions"]);
      const db = join(home, ".store", "history.db");
      expect(r.exitCode).toBe(2);
      expect(r.stderr.toString().trim()).toBe(
        `memvoy: cannot open ${db}: permission denied on ${db}; memvoy writes to its home, even to read it`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test.skipIf(!asNobody)(
  "a vector store this user may not read: hybrid search keeps its keyword results, with one clear note",
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "memvoy-other-user-"));
    try {
      chmodSync(dir, 0o755);
      const home = join(dir, "home");
      const api = openMemory({ home, env: {}, drain: "off" });
      api.add("s1", { role: "user", content: "the deploy pipeline needs a rollback plan" });
      await api.drainEmbeddings();
      api.close();
      Bun.spawnSync(["chown", "-R", "65534:65534", home]);
      // The table's versions made by root (a drain run with sudo), then the whole store.
      const table = readdirSync(join(home, ".store", "lance")).find((n) => n.startsWith("messages_"))!;
      for (let i = 0; i < 4; i++) {
        if (i === 0) Bun.spawnSync(["chown", "-R", "0:0", join(home, ".store", "lance", table, "_versions")]);
        if (i === 2) Bun.spawnSync(["chown", "-R", "0:0", join(home, ".store", "lance")]);
        const r = runAsNobody(dir, ["--home", home, "search", "deploy rollback", "--match", "hybrid"]);
        const stderr = r.stderr.toString();
        expect({ i, code: r.exitCode }).toEqual({ i, code: 0 });
        expect(r.stdout.toString()).toContain("rollback");
        expect(stderr.trim().split("\n")).toHaveLength(1);
        expect(stderr).toMatch(/^memvoy: semantic side unavailable \(permission denied: .*Permission denied/);
        expect(stderr).not.toContain("Caused by");
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test.skipIf(!asNobody)(
  "doctor with a session file of another user and a session folder this user may not read: findings, never a crash",
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "memvoy-other-user-"));
    try {
      chmodSync(dir, 0o755);
      const home = join(dir, "home");
      const api = openMemory({ home, env: {}, drain: "off" }); // no drain left running as root
      for (const s of ["s1", "s2", "s3"]) api.add(s, { role: "user", content: `hello ${s}` });
      api.close();
      Bun.spawnSync(["chown", "-R", "65534:65534", home]);
      const rootsFile = join(home, "sessions", "s1", "history.json");
      Bun.spawnSync(["chown", "0:0", rootsFile]);
      chmodSync(rootsFile, 0o644); // restored as root: readable, open to others, not this user's to change
      chmodSync(join(home, "sessions", "s2"), 0o000);
      const check = runAsNobody(dir, ["--home", home, "doctor", "--json"]);
      expect({ code: check.exitCode, stderr: check.stderr.toString() }).toEqual({ code: 1, stderr: "" });
      const problems = JSON.parse(check.stdout.toString()).findings.map((f: { problem: string }) => f.problem);
      expect(problems).toEqual([
        expect.stringContaining(`in the home are open to other users (${rootsFile} is 0644)`),
        `${join(home, "sessions", "s2", "history.json")} cannot be read by this user (permission denied): give its folder and files back to the user running memvoy (folders 0700, files 0600)`,
      ]);
      const repair = runAsNobody(dir, ["--home", home, "doctor", "--repair"]);
      expect({ code: repair.exitCode, stderr: repair.stderr.toString() }).toEqual({ code: 1, stderr: "" });
      expect(repair.stdout.toString()).toContain(
        `1 belong to another user (${rootsFile}), whose modes only that user or root can change: chown them to the user running memvoy`,
      );
    } finally {
      chmodSync(join(dir, "home", "sessions", "s2"), 0o700);
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test.skipIf(!asNobody)(
  "summarize of every due session: one whose folder this user may not read fails alone; the others are summarized",
  async () => {
    const fake = await startFakeAnthropic();
    fake.respond(() => summaryStep({ key_decisions: ["Do: use Postgres"], current_discussion: current("database") }));
    const dir = mkdtempSync(join(tmpdir(), "memvoy-other-user-"));
    try {
      chmodSync(dir, 0o755);
      const home = join(dir, "home");
      const api = openMemory({ home, env: {}, drain: "off" });
      for (const s of ["s1", "s2", "s3"])
        api.add(s, [
          { role: "user", content: "Shall we use Postgres?" },
          { role: "assistant", content: "Yes, Postgres it is." },
        ]);
      api.close();
      Bun.spawnSync(["chown", "-R", "65534:65534", home]);
      chmodSync(join(home, "sessions", "s2"), 0o000);
      // Asynchronous: the fake Messages API answers from this process.
      const nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"];
      const proc = Bun.spawn(
        [...nobody, "bun", join(repoRoot, "src/index.ts"), "--home", home, "summarize", "--json"],
        {
          env: {
            PATH: process.env.PATH!,
            HOME: dir,
            TZ: "UTC",
            ANTHROPIC_API_KEY: fake.apiKey,
            ANTHROPIC_BASE_URL: fake.url,
          },
          cwd: dir,
          stdout: "pipe",
          stderr: "pipe",
        },
      );
      const r = await processOutput(proc);
      expect(r.code).toBe(1);
      const sessions = JSON.parse(r.stdout).sessions as { session: string; outcome: string; error?: string }[];
      expect(sessions.map((s) => [s.session, s.outcome])).toEqual([
        ["s1", "ok"],
        ["s2", "failed"],
        ["s3", "ok"],
      ]);
      expect(sessions[1]!.error).toContain(
        `permission denied: EACCES: permission denied, lstat '${join(home, "sessions", "s2")}`,
      );
    } finally {
      chmodSync(join(dir, "home", "sessions", "s2"), 0o700);
      rmSync(dir, { recursive: true, force: true });
      await fake.stop();
    }
  },
);

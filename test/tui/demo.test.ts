// memvoy demo: a realistic home through the real write path, in one command, with no API key; and
// HomeMemory.importSummary, which it uses for the summaries.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openMemory } from "../../src/app/open-memory.ts";
import { cli, removeTempHomes, repoRoot, tempHome } from "../fixture/home.ts";
import { processOutput } from "../fixture/process-output.ts";
import { startTui, T } from "../fixture/tui-home.ts";

afterAll(removeTempHomes);

describe("memvoy demo", () => {
  test(
    "creates sessions in English and Traditional Chinese, summaries, error records and vectors",
    async () => {
      const home = join(tempHome(), "demo");
      const r = await cli(["demo", "--home", home, "--json"]);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ home, sessions: 6, messages: 50, summaries: 4, errors: 5 });
      const api = openMemory({ home, env: {} });
      try {
        const sessions = api.sessions();
        expect(sessions.map((s) => s.id).sort()).toEqual([
          "billing-webhooks",
          "deploy-pipeline",
          "kyoto-trip",
          "order-service-zh",
          "research-notes",
          "temp-scratch",
        ]);
        expect(sessions.filter((s) => s.hasSummary)).toHaveLength(4);
        // last activity follows the conversations, days apart
        const byId = new Map(sessions.map((s) => [s.id, s]));
        expect(byId.get("research-notes")!.lastActivity < byId.get("kyoto-trip")!.lastActivity).toBe(true);
        // the long session reaches the archive tier
        const deploy = api.history("deploy-pipeline", { all: true });
        expect(deploy.some((m) => !m.recent) && deploy.some((m) => m.recent)).toBe(true);
        expect(api.history("kyoto-trip", { all: true })[0]!.content).toContain("京都");
        const summary = api.summary("order-service-zh");
        expect(summary.state).toBe("ok");
        expect(summary.summary!.key_decisions[0]).toMatch(/^Do: /);
        expect(summary.due).toBe(false);
        expect(summary.lastRun!.outcome).toBe("imported");
        expect(api.listErrors().total).toBe(5);
        // keyword, CJK and semantic search work at once (vectors were built offline)
        expect((await api.search({ query: "快取", match: "keyword" })).hits[0]!.message.session).toBe(
          "order-service-zh",
        );
        const sem = await api.search({ query: "roll back a bad release", match: "semantic" });
        expect(sem.hits.length).toBeGreaterThan(0);
        expect(sem.notIndexed ?? 0).toBe(0);
        expect((await api.searchErrors({ query: "jq: command not found" })).hits[0]!.record.tool).toBe("bash");
      } finally {
        api.close();
      }
      expect(readFileSync(join(home, "config.toml"), "utf8")).toContain("max_history_bytes");
    },
    T,
  );

  test(
    "without --home it makes a new folder under the temp directory and says how to open it",
    async () => {
      const tmp = tempHome();
      const r = await cli(["demo"], { env: { TMPDIR: tmp } });
      expect(r.code).toBe(0);
      // The command shown is one that works here (memvoy is not on PATH in a source checkout).
      const m = /^  (.+) --home (\S+)\n/m.exec(r.stdout);
      expect(m).not.toBeNull();
      expect(m![1]).toMatch(/^bun \S+src\/index\.ts$/);
      const run = Bun.spawnSync(["bash", "-c", `${m![0]!.trim()} sessions`], {
        cwd: tmpdir(),
        env: { PATH: process.env.PATH!, HOME: tmp, TZ: "UTC" },
        stdout: "pipe",
      });
      expect(run.exitCode).toBe(0);
      expect(run.stdout.toString()).toContain("deploy-pipeline");
      expect(m![2]!.startsWith(join(tmp, "memvoy-demo-"))).toBe(true);
      expect(existsSync(join(m![2]!, "sessions", "deploy-pipeline", "history.json"))).toBe(true);
      expect(r.stdout).toContain(
        "6 sessions (English and Traditional Chinese), 50 messages, 4 summaries, 5 error records",
      );
    },
    T,
  );

  test(
    "refuses a home that already holds data, and changes nothing",
    async () => {
      const home = tempHome();
      await cli(["add", "mine", "--role", "user", "--content", "my own data"], { home });
      const r = await cli(["demo", "--home", home]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("already holds memvoy data");
      const list = await cli(["sessions", "--json"], { home });
      expect(JSON.parse(list.stdout).map((s: { id: string }) => s.id)).toEqual(["mine"]);
    },
    T,
  );

  test(
    "--home=~/DIR is the folder in the user's home, as for every command: a home there with data is refused",
    async () => {
      const user = tempHome();
      const work = tempHome();
      await cli(["add", "mine", "--role", "user", "--content", "my own data"], { home: join(user, "mem") });
      // The shell leaves a ~ after "=" as it is.
      const demo = async (home: string) => {
        const proc = Bun.spawn(["bun", join(repoRoot, "src/index.ts"), "demo", `--home=${home}`], {
          cwd: work,
          env: { PATH: process.env.PATH!, HOME: user, TZ: "UTC" },
          stdout: "pipe",
          stderr: "pipe",
        });
        return processOutput(proc);
      };
      const taken = await demo("~/mem");
      expect(taken.code).toBe(2);
      expect(taken.stderr).toContain(`${join(user, "mem")} already holds memvoy data`);
      const list = await cli(["sessions", "--json"], { home: join(user, "mem") });
      expect(JSON.parse(list.stdout).map((s: { id: string }) => s.id)).toEqual(["mine"]);
      const fresh = await demo("~/fresh");
      expect(fresh.code).toBe(0);
      expect(fresh.stdout).toContain(`Created a demo home in ${join(user, "fresh")}`);
      // Its config (a small history.json, so the archive tier shows) is in the demo home, not in ./~/fresh.
      expect(readFileSync(join(user, "fresh", "config.toml"), "utf8")).toContain("max_history_bytes = 4096");
      expect(readdirSync(work)).toEqual([]);
    },
    T,
  );

  test("a folder holding other files (a project, the user's home) is refused, and nothing is written there", async () => {
    const dir = tempHome();
    writeFileSync(join(dir, "notes.txt"), "mine\n");
    const r = await cli(["demo", "--home", dir]);
    expect([r.code, r.stderr]).toEqual([
      2,
      `memvoy: ${dir} is not empty (it holds "notes.txt"); give demo an empty or new folder with --home\n`,
    ]);
    expect(readdirSync(dir)).toEqual(["notes.txt"]);
  });

  test("a home that is a file, or under one, is refused with one line and exit 2", async () => {
    const file = join(tempHome(), "file");
    writeFileSync(file, "not a folder\n");
    for (const home of [file, join(file, "sub")]) {
      const r = await cli(["demo", "--home", home]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        `memvoy: ${home} is a file, or lies under one; give demo an empty or new folder with --home\n`,
      );
    }
    expect(readFileSync(file, "utf8")).toBe("not a folder\n");
  });

  test(
    "the TUI opens on the demo home",
    async () => {
      const home = join(tempHome(), "demo");
      expect((await cli(["demo", "--home", home])).code).toBe(0);
      const tui = startTui(home);
      try {
        const s = await tui.waitFor("research-notes");
        expect(s).toMatch(/deploy-pipeline\s+20\s+\S+ yes/);
        expect(s).toContain("6 sessions · 50 msgs · 5 errors");
      } finally {
        tui.kill();
      }
    },
    T,
  );
});

describe("HomeMemory.importSummary", () => {
  const valid = {
    key_decisions: ["Do: ship small"],
    past_discussions: [],
    current_discussion: { topic: "t", description: "d", perspectives: "", direction: "" },
  };

  test("checks the summary.json schema and the session before writing anything", () => {
    const home = tempHome();
    const api = openMemory({ home, env: {} });
    try {
      expect(() => api.importSummary("nope", valid)).toThrow(/no such session "nope"/);
      api.add("s", { role: "user", content: "hello" });
      expect(() => api.importSummary("s", { ...valid, key_decisions: ["ship small"] })).toThrow(
        /key_decisions.0: a decision starts with `Do: `/,
      );
      expect(() => api.importSummary("s", { key_decisions: [] })).toThrow(/summary: /);
      expect(existsSync(join(home, "sessions", "s", "summary.json"))).toBe(false);
      const r = api.importSummary("s", valid);
      expect(r.cursor).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
      expect(readFileSync(join(home, "sessions", "s", ".summary_cursor"), "utf8")).toBe(r.cursor);
      expect(api.summary("s").summary!.key_decisions).toEqual(["Do: ship small"]);
      expect(api.dueSessions()).not.toContain("s");
    } finally {
      api.close();
    }
  });
});

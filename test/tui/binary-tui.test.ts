// The compiled binary from a folder outside the repo, with the repo's node_modules hidden (a private mount
// namespace binds an empty folder over it when the system allows): CLI commands, the demo, summarize
// against the fake Anthropic API, and the TUI under tmux with TERM=xterm-256color and TERM=xterm-kitty.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json";
import {
  buildBinaryOnce,
  makeTempDir,
  removeTempDirs,
  repoRoot,
  runBinary,
  type RunOptions,
} from "../fixture/binary.ts";
import { startFakeAnthropic, type FakeAnthropic } from "../fixture/fake-anthropic.ts";
import { TmuxSession } from "../fixture/tmux.ts";

const BUILD_MS = 600_000;
const T = 90_000;
let bin = "";
let fake: FakeAnthropic;
/** argv prefix that runs a command with <repo>/node_modules replaced by an empty folder, when possible. */
let hide: string[] = [];

function probeHiding(): string[] {
  const empty = makeTempDir("memvoy-empty-");
  const prefix = [
    "unshare",
    "-m",
    "sh",
    "-c",
    `mount --bind '${empty}' '${join(repoRoot, "node_modules")}' && exec "$@"`,
    "sh",
  ];
  const p = Bun.spawnSync([...prefix, "sh", "-c", `test -z "$(ls -A '${join(repoRoot, "node_modules")}')"`], {
    stdout: "ignore",
    stderr: "ignore",
  });
  return p.exitCode === 0 ? prefix : [];
}

beforeAll(async () => {
  bin = await buildBinaryOnce();
  fake = await startFakeAnthropic();
  hide = probeHiding();
  if (hide.length === 0)
    console.warn(
      "binary-tui: cannot hide node_modules here (no mount namespace); running with the copy outside the repo only",
    );
}, BUILD_MS);
afterAll(async () => {
  await fake?.stop();
  removeTempDirs();
});

function run(args: string[], o: RunOptions = {}) {
  return hide.length ? runBinary(hide[0]!, [...hide.slice(1), bin, ...args], o) : runBinary(bin, args, o);
}

describe("the compiled binary", () => {
  test(
    "is a copy outside the repo; --version",
    async () => {
      expect(bin.startsWith(repoRoot)).toBe(false);
      const r = await run(["--version"]);
      expect(r.stdout.trim()).toBe(`memvoy ${pkg.version}`);
    },
    T,
  );

  test(
    "add, keyword and semantic search, summarize against the fake LLM",
    async () => {
      const home = join(makeTempDir(), "home");
      const add = (content: string, role = "user") =>
        run(["add", "s", "--home", home, "--role", role, "--content", content]);
      expect((await add("we deploy the billing service with a canary")).code).toBe(0);
      expect((await add("Keep the previous image tagged so rollback is instant.", "assistant")).code).toBe(0);
      const kw = await run(["search", "canary", "--home", home, "--match", "keyword", "--json"]);
      expect(kw.code).toBe(0);
      expect(JSON.parse(kw.stdout).hits[0].content).toContain("canary");
      const sem = await run(["search", "rollback", "--home", home, "--match", "semantic", "--json"]);
      expect(sem.code, sem.stderr).toBe(0);
      expect(JSON.parse(sem.stdout).hits.length).toBeGreaterThan(0);
      fake.push({
        json: {
          key_decisions: ["Do: deploy behind a canary"],
          past_discussions: [],
          current_discussion: {
            topic: "rollback",
            description: "tag the previous image",
            perspectives: "",
            direction: "",
          },
        },
        tag: "summary",
      });
      const env = { ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url };
      const sum = await run(["summarize", "s", "--home", home], { env });
      expect(sum.code, sum.stdout + sum.stderr).toBe(0);
      const view = await run(["summary", "s", "--home", home]);
      expect(view.stdout).toContain("Do: deploy behind a canary");
    },
    T,
  );

  for (const term of ["xterm-256color", "xterm-kitty"]) {
    test(
      `the TUI on the demo home under tmux, TERM=${term}`,
      async () => {
        const dir = makeTempDir();
        const home = join(dir, "demo");
        const demo = await run(["demo", "--home", home]);
        expect(demo.code, demo.stderr).toBe(0);
        mkdirSync(join(dir, "cwd"));
        const tui = TmuxSession.start([...hide, bin, "--home", home], { env: { TERM: term }, cwd: join(dir, "cwd") });
        try {
          let s = await tui.waitFor("research-notes", 30_000);
          expect(s).toContain("┌─ Sessions 6");
          expect(s).toContain("6 sessions · 50 msgs · 5 errors");
          tui.type("kyoto");
          s = await tui.waitFor("京都");
          tui.keys("Escape");
          await tui.waitFor("type to filter");
          tui.keys("/");
          await tui.waitFor("Search:");
          tui.type("rollback");
          s = await tui.waitFor(/▶ deploy-pipeline · /);
          // hybrid search loaded the vector store: none of its logging reached the screen
          expect(s).not.toMatch(/WARN|lance::|No existing dataset/);
          tui.keys("Escape");
          await tui.waitForGone("Search:");
          tui.keys("C-s");
          await tui.waitFor("Key decisions");
          tui.keys("Escape");
          await tui.waitFor("type to filter");
          tui.keys("C-e");
          await tui.waitFor("jq: command not found");
          tui.keys("q");
          const end = await tui.exited();
          expect(end.code).toBe(0);
          expect(end.modes).toEqual(["icanon", "echo"]);
          expect(tui.format("alternate_on")).toBe("0");
        } finally {
          tui.kill();
        }
      },
      T,
    );
  }
});

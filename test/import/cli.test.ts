import { afterAll, describe, expect, test } from "bun:test";
import {
  appendFileSync,
  lstatSync,
  symlinkSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  statSync,
  truncateSync,
  writeFileSync,
  existsSync,
} from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { trigramReady } from "../../src/storage/sqlite/substring-index.ts";
import { cli, removeTempHomes, repoRoot, tempHome, waitFor } from "../fixture/home.ts";
import { CC_SESSION_B, writeClaudeProjects } from "../fixture/import/claude-code.ts";
import { writeCodexHome } from "../fixture/import/codex.ts";
import { writeGeminiHome } from "../fixture/import/gemini.ts";
import { writeOpencodeData } from "../fixture/import/opencode.ts";

afterAll(removeTempHomes);

/** What `memvoy ARGS` writes on a pseudo-terminal (script(1) runs it there). */
function onTerminal(args: string[], env: Record<string, string> = {}): string {
  const command = ["bun", join(repoRoot, "src/index.ts"), ...args].map((a) => `'${a}'`).join(" ");
  return Bun.spawnSync(["script", "-qec", command, "/dev/null"], {
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, ...env },
  }).stdout.toString();
}

/** Whether a process has the file `path` open (Linux names a descriptor's file in /proc/PID/fd). */
function openByAnyProcess(path: string): boolean {
  const pids = existsSync("/proc/self/fd") ? readdirSync("/proc").filter((n) => /^\d+$/.test(n)) : [];
  return pids.some((pid) => {
    try {
      return readdirSync(`/proc/${pid}/fd`).some((fd) => {
        try {
          return readlinkSync(`/proc/${pid}/fd/${fd}`) === path;
        } catch {
          return false;
        }
      });
    } catch {
      return false; // exited meanwhile
    }
  });
}

/** Messages waiting for their vector in the home's archive. */
function queued(home: string): number {
  const db = new Database(join(home, ".store", "history.db"), { readonly: true });
  try {
    return (db.query("SELECT count(*) AS n FROM embed_queue").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

function sourcesEnv(): Record<string, string> {
  const root = tempHome("sources-");
  writeClaudeProjects(join(root, "claude"));
  writeCodexHome(join(root, "codex"));
  writeOpencodeData(join(root, "xdg"));
  writeGeminiHome(join(root, "gem"));
  return {
    CLAUDE_CONFIG_DIR: join(root, "claude"),
    CODEX_HOME: join(root, "codex"),
    XDG_DATA_HOME: join(root, "xdg"),
    GEMINI_CLI_HOME: join(root, "gem"),
  };
}

describe("memvoy import / export", () => {
  test("import auto finds every source, says what it took from each, and lists aider and chatgpt as skipped", async () => {
    const env = sourcesEnv();
    const home = tempHome();
    const r = await cli(["import", "auto", "--json"], { home, env });
    expect(r.code).toBe(0);
    const { sources } = JSON.parse(r.stdout);
    const by = Object.fromEntries(sources.map((s: { source: string }) => [s.source, s]));
    expect(by["claude-code"]).toMatchObject({
      note: "found",
      sessions: 5,
      messages: { added: 16 },
      redacted: 1,
      skippedCount: 1,
    });
    expect(by["claude-code"].skipped[0]).toMatchObject({ line: 9, reason: "not valid JSON" });
    expect(by.codex).toMatchObject({ note: "found", sessions: 3, messages: { added: 8 } });
    expect(by.opencode).toMatchObject({ note: "found", sessions: 3, messages: { added: 8 } });
    expect(by.gemini).toMatchObject({ note: "found", sessions: 3, messages: { added: 8 } });
    expect(by.aider.note).toStartWith("skipped: no default location");
    expect(by.chatgpt.note).toStartWith("skipped: no default location");
    const text = await cli(["import", "auto"], { home, env });
    expect(text.stdout).toContain("claude-code: 5 files (5 unchanged), 0 sessions, added 0 messages");
    expect(text.stdout).toContain("aider: skipped: no default location");

    const cc = JSON.parse((await cli(["sessions", "--source", "claude-code", "--json"], { home })).stdout);
    expect(cc).toHaveLength(5);
    const api = JSON.parse((await cli(["sessions", "--project", "/home/dev/api", "--json"], { home })).stdout);
    expect(api.map((s: { id: string }) => s.id).sort()).toEqual([
      "cc-7a8b9c0d-2222-4e5f-9a0b-1c2d3e4f5a6b",
      "cc-7a8b9c0d-2222-4e5f-9a0b-1c2d3e4f5a6b-agent-a1b2c3d4",
    ]);
    expect(api.find((s: { parent?: string }) => s.parent)).toMatchObject({
      source: "claude-code",
      title: "List the middleware",
    });
    const search = JSON.parse((await cli(["search", "terser", "--json"], { home })).stdout);
    expect(search.hits.length).toBeGreaterThan(0);
  });

  test("export, import into an empty home, export again: identical bytes; --output is atomic and 0600", async () => {
    const env = sourcesEnv();
    const home = tempHome();
    expect((await cli(["import", "auto"], { home, env })).code).toBe(0);
    // A native session with a sender and nanosecond times, and one the export must round-trip too.
    const jsonl =
      '{"role":"user","content":"hello \\u2028 \\"quoted\\" 你好","sendAt":"2026-01-01T00:00:00.123456789Z","sender":"ann"}\n{"role":"assistant","content":"hi","sendAt":"2026-01-01T00:00:01Z"}\n';
    expect((await cli(["add", "native", "--json"], { home, stdin: jsonl })).code).toBe(0);
    const out = join(tempHome("export-"), "all.jsonl");
    const e1 = await cli(["export", "--all", "--output", out, "--json"], { home });
    expect(e1.code).toBe(0);
    expect(JSON.parse(e1.stdout)).toMatchObject({ output: out, sessions: 15, messages: 42 });
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const first = readFileSync(out, "utf8");
    const lines = first
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({
      type: "session",
      id: "cc-5f0c1a2b-1111-4c3d-8e9f-0a1b2c3d4e5f",
      source: "claude-code",
    });
    expect(lines.find((l) => l.session === "native")).toMatchObject({
      role: "user",
      sender: "ann",
      sendAt: "2026-01-01T00:00:00.123456789Z",
    });

    const empty = tempHome();
    const imp = await cli(["import", "jsonl", out, "--json"], { home: empty });
    expect(imp.code).toBe(0);
    expect(JSON.parse(imp.stdout).sources[0]).toMatchObject({ source: "jsonl", messages: { added: 42 }, redacted: 0 });
    const e2 = await cli(["export", "--all"], { home: empty });
    expect(e2.stdout).toBe(first);
    // Importing the same file again adds nothing.
    expect(
      JSON.parse((await cli(["import", "jsonl", out, "--json"], { home: empty })).stdout).sources[0].messages.added,
    ).toBe(0);

    // A failing export leaves an existing --output file untouched.
    writeFileSync(out, "keep me");
    const bad = await cli(["export", "no-such-session", "--output", out], { home });
    expect(bad.code).toBe(2);
    expect(readFileSync(out, "utf8")).toBe("keep me");
    const md = await cli(["export", "native", "--format", "md"], { home });
    expect(md.stdout).toContain("## user (ann) · 2026-01-01T00:00:00.123456789Z");
    const since = await cli(["export", "--all", "--since", "2026-08-01T07:02:00Z", "--until", "2026-08-01T07:02:01Z"], {
      home,
    });
    expect(
      since.stdout
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l).type),
    ).toEqual(["session", "message"]);
  });

  test("import jsonl - (or no PATH with stdin piped) reads the export from stdin: same bytes back, bad lines named", async () => {
    const env = sourcesEnv();
    const home = tempHome();
    expect((await cli(["import", "auto"], { home, env })).code).toBe(0);
    const exported = (await cli(["export", "--all"], { home })).stdout;
    expect(exported.split("\n").length).toBeGreaterThan(40);

    const empty = tempHome();
    const dry = await cli(["import", "jsonl", "-", "--dry-run", "--json"], { home: empty, stdin: exported });
    expect(JSON.parse(dry.stdout).sources[0]).toMatchObject({
      paths: ["(stdin)"],
      dryRun: true,
      messages: { added: 40 },
    });
    expect(JSON.parse((await cli(["sessions", "--json"], { home: empty })).stdout)).toEqual([]);
    const piped = await cli(["import", "jsonl", "-", "--json"], { home: empty, stdin: exported });
    expect(piped.code).toBe(0);
    expect(JSON.parse(piped.stdout).sources[0]).toMatchObject({ files: { read: 1 }, messages: { added: 40 } });
    expect((await cli(["export", "--all"], { home: empty })).stdout).toBe(exported);
    // No PATH, stdin not a terminal: the same; everything is there already.
    const again = await cli(["import", "jsonl", "--json"], { home: empty, stdin: exported });
    expect(JSON.parse(again.stdout).sources[0].messages).toMatchObject({ added: 0, existing: 40 });

    // A malformed line is skipped and named (stdin):line; the last line may lack its newline.
    const bad = `${exported.split("\n")[0]}\n{oops\n${exported.trimEnd().split("\n")[1]!.replace('"content":"', '"content":"x')}`;
    const other = tempHome();
    const r = await cli(["import", "jsonl", "-", "--json"], { home: other, stdin: bad });
    expect(JSON.parse(r.stdout).sources[0]).toMatchObject({
      messages: { added: 1 },
      skippedCount: 1,
      skipped: [{ file: "(stdin)", line: 2, reason: "not valid JSON" }],
    });
    const text = await cli(["import", "jsonl", "-"], { home: tempHome(), stdin: bad });
    expect(text.stderr).toContain("skipped (stdin):2: not valid JSON");
    expect((await cli(["import", "jsonl", "-", "--watch"], { home: other, stdin: bad })).code).toBe(2);
    expect((await cli(["import", "jsonl", "-", "x.jsonl"], { home: other, stdin: bad })).code).toBe(2);
  });

  test("import jsonl reads an export from a pipe or FIFO named as PATH (<(cat f), /dev/stdin); other sources refuse a pipe in one line", async () => {
    const home = tempHome();
    expect((await cli(["import", "auto"], { home, env: sourcesEnv() })).code).toBe(0);
    const exported = (await cli(["export", "--all"], { home })).stdout;
    const dir = tempHome("fifo-");
    const file = join(dir, "export.jsonl");
    writeFileSync(file, exported);
    const fifo = join(dir, "conversations.json");
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
    // The writer waits until the import opens the FIFO for reading.
    const writer = Bun.spawn(["sh", "-c", 'cat "$1" > "$2"', "sh", file, fifo]);
    const empty = tempHome();
    const r = await cli(["import", "jsonl", fifo, "--json"], { home: empty });
    expect(await writer.exited).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).sources[0]).toMatchObject({ failed: [], messages: { added: 40 } });
    expect((await cli(["export", "--all"], { home: empty })).stdout).toBe(exported);

    const watched = await cli(["import", "jsonl", fifo, "--watch"], { home: empty });
    expect(watched.code).toBe(2);
    expect(watched.stderr).toBe("memvoy: import jsonl: --watch must be used with files, not a pipe or device\n");
    // --interval is the pace of --watch: alone it would run one pass and say nothing of the interval.
    const paced = await cli(["import", "jsonl", file, "--interval", "5"], { home: empty });
    expect(paced.code).toBe(2);
    expect(paced.stderr).toBe("memvoy: import jsonl: --interval needs --watch\n");
    const other = await cli(["import", "chatgpt", fifo], { home: empty });
    expect(other.code).toBe(2);
    expect(other.stderr).toBe(
      `memvoy: import chatgpt: ${fifo} is a pipe or device, not a file or folder; save it to a file and give that\n`,
    );
  });

  test("a named source with nothing at its default location (or where its variable points) says so: exit 2, one line, no home made", async () => {
    const home = join(tempHome("no-sources-"), "home");
    const nowhere = tempHome("empty-user-");
    const cases: [string, Record<string, string>, string][] = [
      ["codex", { HOME: nowhere, CODEX_HOME: join(nowhere, "codex") }, "set CODEX_HOME"],
      ["claude-code", { HOME: nowhere, CLAUDE_CONFIG_DIR: "" }, join(nowhere, ".claude", "projects")],
      ["opencode", { HOME: nowhere, XDG_DATA_HOME: "", OPENCODE_DB: "/no/such/opencode.db" }, "/no/such/opencode.db"],
      ["gemini", { HOME: nowhere, GEMINI_CLI_HOME: "" }, "set GEMINI_CLI_HOME"],
    ];
    for (const [source, env, named] of cases) {
      const r = await cli(["import", source], { home, env });
      expect([r.code, r.stderr.trim().split("\n").length]).toEqual([2, 1]);
      expect(r.stderr).toContain(`import ${source}: not found at its default location (`);
      expect(r.stderr).toContain(named);
    }
    expect(existsSync(home)).toBe(false);
    // An empty folder where the source lives is a pass that found nothing, not an error.
    mkdirSync(join(nowhere, "codex", "sessions"), { recursive: true });
    const empty = await cli(["import", "codex"], { home, env: { HOME: nowhere, CODEX_HOME: join(nowhere, "codex") } });
    expect([empty.code, empty.stdout.trim()]).toEqual([
      0,
      "codex: 0 files (0 unchanged), 0 sessions, added 0 messages",
    ]);
  });

  test("an import that stores nothing (an empty export, another tool's file, from a path or stdin) makes no home", async () => {
    const dir = tempHome("nothing-to-store-");
    const home = join(dir, "home");
    const empty = join(dir, "empty.jsonl");
    const foreign = join(dir, "foreign.jsonl");
    writeFileSync(empty, "");
    writeFileSync(foreign, '{"foo":1}\n');
    const garbage = join(dir, "projects", "x");
    mkdirSync(garbage, { recursive: true });
    writeFileSync(join(garbage, "garbage.jsonl"), "lorem ipsum\n");
    const runs: [string[], string | undefined, number][] = [
      [["import", "jsonl", empty], undefined, 0],
      [["import", "jsonl", foreign], undefined, 1],
      [["import", "jsonl", "-"], "", 0],
      [["import", "jsonl", "-"], '{"foo":1}\n', 1],
      [["import", "claude-code", join(dir, "projects")], undefined, 1],
    ];
    for (const [args, stdin, code] of runs) {
      const r = await cli(args, { home, stdin });
      expect([args.join(" "), r.code]).toEqual([args.join(" "), code]);
      expect(r.stdout).toContain("0 sessions, added 0 messages");
      expect(existsSync(home)).toBe(false);
    }
    // The first message stored makes the home, and a session line alone does too.
    const session = JSON.stringify({ type: "session", id: "s1", title: "kept" });
    const r = await cli(["import", "jsonl", "-"], { home, stdin: `${session}\n` });
    expect([r.code, r.stdout.trim()]).toEqual([0, "jsonl: 1 file (0 unchanged), 1 session, added 0 messages"]);
    expect((await cli(["sessions", "--json"], { home })).stdout).toContain('"s1"');
    // A home that cannot be made there is still one line naming it, exit 2, when the first message is stored.
    if (existsSync("/proc/self"))
      for (const args of [
        ["import", "jsonl", "-"],
        ["import", "claude-code", writeClaudeProjects(tempHome("cc-"))],
      ]) {
        const r = await cli(args, { home: "/proc/memvoy-home", stdin: `${session}\n` });
        expect({ args, code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
          args,
          code: 2,
          stdout: "",
          stderr:
            "memvoy: cannot create the home /proc/memvoy-home: no folder can be made in /proc; give --home (or MEMVOY_HOME) a folder you may write to\n",
        });
      }
  });

  test("usage errors exit 2; a failed file exits 1 after the rest is imported; --dry-run writes nothing", async () => {
    const home = tempHome();
    expect((await cli(["import"], { home })).code).toBe(2);
    expect((await cli(["import", "netscape"], { home })).stderr).toContain('unknown source "netscape"');
    expect((await cli(["import", "aider"], { home })).stderr).toContain("give the PATH");
    expect((await cli(["import", "claude-code", "/no/such/dir"], { home })).code).toBe(2);
    // An export is one file: a folder is refused up front, in one line, and nothing is written.
    const folder = await cli(["import", "jsonl", tempHome("export-dir-")], { home });
    expect(folder.code).toBe(2);
    expect(folder.stderr.trim().split("\n")).toHaveLength(1);
    expect(folder.stderr).toContain("is a folder; name a file");
    expect(existsSync(join(home, ".store"))).toBe(false);
    // --since takes the forms search and history take, and a bad one names them all; so does export's.
    for (const args of [
      ["import", "claude-code", home, "--since", "last tuesday"],
      ["export", "--all", "--since", "last tuesday"],
    ]) {
      const bad = await cli(args, { home });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('invalid --since "last tuesday"');
      expect(bad.stderr).toContain("today, yesterday, or a relative form (30m, 12h, 3d, 2w, 1y)");
    }
    expect((await cli(["import", "claude-code", home, "--since", "yesterday", "--dry-run"], { home })).code).toBe(0);
    expect((await cli(["import", "--help"], { home })).stdout).toContain("30m, 12h, 3d, 2w, 1y");
    expect((await cli(["export"], { home })).code).toBe(2);
    expect((await cli(["export", "--all", "--format", "pdf"], { home })).code).toBe(2);
    // A folder that takes no new file (/proc): one line naming the output, exit 2, no temp file's name.
    const unwritable = await cli(["export", "--all", "--output", "/proc/memvoy-export.jsonl"], { home: tempHome() });
    expect([unwritable.code, unwritable.stderr.trim()]).toEqual([
      2,
      "memvoy: cannot write /proc/memvoy-export.jsonl: its folder does not take new files",
    ]);

    const src = tempHome("cc-");
    const projects = writeClaudeProjects(src);
    mkdirSync(join(projects, "x"));
    writeFileSync(join(projects, "x", "garbage.jsonl"), "lorem ipsum\n");
    const dry = await cli(["import", "claude-code", projects, "--dry-run"], { home });
    expect(dry.stdout).toContain("would add 16 messages");
    // A home that did not exist is not created by a dry run.
    expect(existsSync(join(home, ".store"))).toBe(false);
    expect(existsSync(join(home, "sessions"))).toBe(false);
    const r = await cli(["import", "claude-code", projects], { home });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("added 16 messages");
    // In an existing home a dry run changes nothing either: the next real run still finds one new turn to add.
    const file = join(projects, "-home-dev-api", `${CC_SESSION_B}.jsonl`);
    appendFileSync(
      file,
      `${JSON.stringify({ type: "user", uuid: "b-dry", parentUuid: "b-4", sessionId: CC_SESSION_B, cwd: "/home/dev/api", timestamp: "2026-04-02T11:00:00.000Z", message: { role: "user", content: "one more" } })}\n`,
    );
    // The import left a background drain embedding what it added: it writes the archive, and checkpoints it as it
    // exits. The files are compared once it is gone.
    await waitFor(
      () => queued(home) === 0 && !openByAnyProcess(join(home, ".store", "history.db")),
      60_000,
      "the import's background drain to finish",
    );
    const store = () =>
      ["history.db", "history.db-wal"].map((f) =>
        existsSync(join(home, ".store", f)) ? readFileSync(join(home, ".store", f)).toString("base64") : "",
      );
    const before = store();
    const dry2 = await cli(["import", "claude-code", projects, "--dry-run", "--json"], { home });
    expect(JSON.parse(dry2.stdout).sources[0].messages).toMatchObject({ added: 1 });
    expect(store()).toEqual(before);
    const real = await cli(["import", "claude-code", projects, "--json"], { home });
    expect(JSON.parse(real.stdout).sources[0].messages).toMatchObject({ added: 1 });
    expect(r.stderr).toContain("garbage.jsonl: not a Claude Code transcript");
  });

  test.skipIf(!Bun.which("script"))(
    "a progress bar on a terminal (files, messages, rate); none when stderr is not a terminal",
    async () => {
      const projects = writeClaudeProjects(tempHome("cc-"));
      const home = tempHome();
      const out = onTerminal(["--home", home, "import", "claude-code", projects]);
      expect(out).toMatch(/\rclaude-code \[[#.]{20}\] \d\/5 files, \d+ messages, \d+\/s/);
      expect(out).toContain("added 16 messages");
      const plain = await cli(["import", "claude-code", projects], { home: tempHome() });
      expect(plain.stderr).not.toContain("\r");
      expect(plain.stderr).not.toContain("files,");
      // A terminal that cannot move the cursor back (TERM=dumb: Emacs' shell) gets no bar either.
      const dumb = onTerminal(["--home", tempHome(), "import", "claude-code", projects], { TERM: "dumb" });
      expect(dumb).toContain("added 16 messages");
      expect(dumb).not.toContain("\x1b[K");
      expect(dumb).not.toContain("files,");
    },
    60_000,
  );

  test.skipIf(!Bun.which("script"))(
    "a large pass shows its substring index build on the bar, and returns with the index whole",
    async () => {
      // Past 20,000 messages a pass defers the index (src/memory/imports/deferred-index.ts): 25,000 in one file.
      const sessions = 25;
      const perSession = 1000;
      const lines: string[] = [];
      for (let s = 0; s < sessions; s++) {
        lines.push(JSON.stringify({ type: "session", id: `big-${s}`, source: "claude-code" }));
        for (let i = 0; i < perSession; i++)
          lines.push(
            JSON.stringify({
              type: "message",
              id: `b${s}x${String(i).padStart(5, "0")}`,
              session: `big-${s}`,
              role: i % 2 === 0 ? "user" : "assistant",
              content: `message ${i} of session ${s}: the glorbix${i % 97}tail plan`,
              sendAt: new Date(Date.UTC(2026, 0, 1, s, 0, 0, i)).toISOString(),
            }),
          );
      }
      const file = join(tempHome("big-"), "big.jsonl");
      writeFileSync(file, lines.join("\n") + "\n");
      const home = tempHome();
      const out = onTerminal(["--home", home, "import", "jsonl", file]);
      expect(out).toMatch(/\rjsonl indexing text for substring search \[#{20}\] 100%, 25000 messages, \d+\/s/);
      expect(out).toContain("added 25000 messages");
      const db = new Database(join(home, ".store", "history.db"), { readonly: true });
      try {
        expect(trigramReady(db)).toBe(true);
      } finally {
        db.close();
      }
      const found = await cli(["search", "rbix42ta", "--json", "--limit", "500"], { home });
      // i % 97 === 42 for 10 of each session's 1,000 messages.
      expect(JSON.parse(found.stdout).hits.length).toBe(10 * sessions);
    },
    120_000,
  );

  test("a single line over the limit is refused with the named limit", async () => {
    const dir = tempHome("huge-");
    const file = join(dir, "huge.jsonl");
    writeFileSync(file, "");
    truncateSync(file, 300 * 1024 * 1024); // sparse: 300 MiB of one line
    const home = tempHome();
    const r = await cli(["import", "claude-code", file], { home });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("over the 256 MiB line limit");
  }, 60_000);
});

test("sessions --project takes a folder relative to where it runs (., ../shop)", async () => {
  const home = tempHome();
  const root = tempHome("projects-");
  const shop = join(root, "shop");
  mkdirSync(join(shop, "src"), { recursive: true });
  const lines = [
    { type: "session", id: "in-shop", project: shop },
    {
      type: "message",
      id: "01M9000000000000000000000A",
      session: "in-shop",
      role: "user",
      content: "a",
      sendAt: "2026-12-01T10:00:00.000000000Z",
    },
    { type: "session", id: "elsewhere", project: join(root, "shopping") },
    {
      type: "message",
      id: "01M9000000000000000000000B",
      session: "elsewhere",
      role: "user",
      content: "b",
      sendAt: "2026-12-01T10:00:01.000000000Z",
    },
  ];
  const imported = await cli(["import", "jsonl", "-"], {
    home,
    stdin: `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`,
  });
  expect(imported.code).toBe(0);
  const listed = (cwd: string, project: string) => {
    const r = Bun.spawnSync(
      ["bun", join(repoRoot, "src/index.ts"), "sessions", "--home", home, "--project", project, "--json"],
      {
        cwd,
        env: { PATH: process.env.PATH!, HOME: root, TZ: "UTC" },
      },
    );
    expect(r.stderr.toString()).toBe("");
    return (JSON.parse(r.stdout.toString()) as { id: string }[]).map((s) => s.id);
  };
  expect(listed(shop, ".")).toEqual(["in-shop"]);
  expect(listed(join(shop, "src"), "../")).toEqual(["in-shop"]);
  expect(listed(root, "shop")).toEqual(["in-shop"]);
  expect(listed(join(shop, "src"), `${shop}/src/..`)).toEqual(["in-shop"]);
  expect(listed(root, shop)).toEqual(["in-shop"]);
  // --project=~/shop: the shell leaves a ~ after "=" as it is.
  expect(listed(join(shop, "src"), "~/shop")).toEqual(["in-shop"]);
}, 60_000);

test("export --output=~/FILE writes FILE in the user's home, as the shell leaves a ~ after = as it is", async () => {
  const home = tempHome();
  expect((await cli(["add", "s", "--role", "user", "--content", "hello"], { home })).code).toBe(0);
  const cwd = tempHome("export-cwd-");
  const user = tempHome("export-user-");
  const r = Bun.spawnSync(
    ["bun", join(repoRoot, "src/index.ts"), "export", "s", "--output=~/s.jsonl", "--home", home],
    {
      cwd,
      env: { PATH: process.env.PATH!, HOME: user, TZ: "UTC" },
    },
  );
  expect([r.exitCode, r.stderr.toString()]).toEqual([0, `exported 1 session, 1 message to ${join(user, "s.jsonl")}\n`]);
  expect(readFileSync(join(user, "s.jsonl"), "utf8")).toContain('"content":"hello"');
  expect(readdirSync(cwd)).toEqual([]);
}, 60_000);

test("export --output with an empty value is a usage error: exit 2, one line, no file written anywhere", async () => {
  const home = tempHome();
  expect((await cli(["add", "s", "--role", "user", "--content", "hello"], { home })).code).toBe(0);
  const cwd = tempHome("export-cwd-");
  const r = Bun.spawnSync(["bun", join(repoRoot, "src/index.ts"), "export", "--all", "--output", "", "--home", home], {
    cwd,
    env: { PATH: process.env.PATH!, HOME: tempHome("export-user-"), TZ: "UTC" },
  });
  expect([r.exitCode, r.stderr.toString().trim()]).toEqual([2, "memvoy: export: --output needs a value"]);
  expect(r.stdout.toString()).toBe("");
  expect(readdirSync(cwd)).toEqual([]);
}, 60_000);

test("export --output - writes the export to stdout, as import jsonl - reads it from stdin, and makes no file named -", async () => {
  const home = tempHome();
  expect((await cli(["add", "s", "--role", "user", "--content", "hello"], { home })).code).toBe(0);
  const cwd = tempHome("export-cwd-");
  const run = (args: string[]) =>
    Bun.spawnSync(["bun", join(repoRoot, "src/index.ts"), ...args, "--home", home], {
      cwd,
      env: { PATH: process.env.PATH!, HOME: tempHome("export-user-"), TZ: "UTC" },
    });
  const plain = run(["export", "--all"]);
  expect(plain.exitCode).toBe(0);
  for (const args of [
    ["export", "--all", "--output", "-"],
    ["export", "--all", "--output", "-", "--json"],
  ]) {
    const r = run(args);
    expect([r.exitCode, r.stderr.toString()]).toEqual([0, ""]);
    expect(r.stdout.toString()).toBe(plain.stdout.toString());
  }
  expect(readdirSync(cwd)).toEqual([]);
  const back = await cli(["import", "jsonl", "-"], {
    home: tempHome(),
    stdin: run(["export", "--all", "-o", "-"]).stdout,
  });
  expect(back.code).toBe(0);
  expect(back.stdout).toContain("added 1 message");
}, 60_000);

test("export --output writes into a FIFO, a stream of its own (/proc/self/fd/1) and the file a link names, and replaces none of them", async () => {
  const home = tempHome();
  expect((await cli(["add", "s", "--role", "user", "--content", "hello"], { home })).code).toBe(0);
  const plain = (await cli(["export", "--all"], { home })).stdout;
  const dir = tempHome("export-special-");
  const fifo = join(dir, "feed");
  expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
  // The reader waits for the export to open the FIFO.
  const reader = Bun.spawn(["cat", fifo], { stdout: "pipe" });
  const viaFifo = await cli(["export", "--all", "--output", fifo], { home });
  // A FIFO replaced by a file leaves the reader waiting for good.
  if (!lstatSync(fifo).isFIFO()) reader.kill();
  expect([viaFifo.code, viaFifo.stderr]).toEqual([0, `exported 1 session, 1 message to ${fifo}\n`]);
  expect(lstatSync(fifo).isFIFO()).toBe(true);
  expect(await new Response(reader.stdout).text()).toBe(plain);

  const own = await cli(["export", "--all", "--output", "/proc/self/fd/1"], { home });
  expect([own.code, own.stdout]).toEqual([0, plain]);

  writeFileSync(join(dir, "real.jsonl"), "old\n");
  symlinkSync("real.jsonl", join(dir, "link.jsonl"));
  expect((await cli(["export", "--all", "--output", join(dir, "link.jsonl")], { home })).code).toBe(0);
  expect(lstatSync(join(dir, "link.jsonl")).isSymbolicLink()).toBe(true);
  expect(readFileSync(join(dir, "real.jsonl"), "utf8")).toBe(plain);
}, 60_000);

test("export --output removes what an export killed mid-write left beside the file, and only that", async () => {
  const home = tempHome();
  expect((await cli(["add", "s1", "--role", "user", "--content", "hello"], { home })).code).toBe(0);
  const dir = tempHome();
  const out = join(dir, "out.jsonl");
  const dead = Bun.spawnSync(["true"]).pid; // exited and reaped: its temp file is stale
  const stale = join(dir, `.out.jsonl.${dead}.k1ll3d.tmp`);
  const live = join(dir, `.out.jsonl.${process.pid}.wr1t1ng.tmp`); // a writer still running
  const other = join(dir, `.other.jsonl.${dead}.k1ll3d.tmp`); // another file's
  for (const f of [stale, live, other]) writeFileSync(f, '{"type":"session","id":"s1"}\n');
  expect((await cli(["export", "--all", "--output", out], { home })).code).toBe(0);
  expect(readdirSync(dir).sort()).toEqual(
    [`.other.jsonl.${dead}.k1ll3d.tmp`, `.out.jsonl.${process.pid}.wr1t1ng.tmp`, "out.jsonl"].sort(),
  );
});

test("a source file named with an escape sequence is reported without it: the report's names never drive the terminal", async () => {
  const dir = tempHome("import-names-");
  const failing = join(dir, "a\x1b]0;owned\x07.jsonl");
  const skipping = join(dir, "b\x1b[2J.jsonl");
  writeFileSync(failing, '{"a":1}\n');
  writeFileSync(skipping, '{"type":"session","id":"p"}\nnot json\n');
  const r = await cli(["import", "jsonl", failing, skipping], { home: join(dir, "home") });
  expect(r.code).toBe(1);
  expect(r.stderr).toContain("failed ");
  expect(r.stderr).toContain("skipped ");
  expect(r.stdout + r.stderr).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
});

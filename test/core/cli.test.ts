import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cli, removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

/** A snapshot of what a home holds, to prove a refused command changed nothing. */
async function snapshot(home: string) {
  const r = await cli(["history", "s", "--all", "--json"], { home });
  const file = join(home, "sessions", "s", "history.json");
  return { history: r.stdout, file: existsSync(file) ? readFileSync(file, "utf8") : "" };
}

describe("CLI", () => {
  test("--version and --help", async () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dir, "../../package.json"), "utf8"));
    const v = await cli(["--version"]);
    expect(v).toMatchObject({ code: 0, stdout: `memvoy ${pkg.version}\n` });
    const h = await cli(["--help"]);
    expect(h.code).toBe(0);
    for (const c of ["add", "sessions", "history", "search", "context", "reset", "rm", "doctor", "config"])
      expect(h.stdout).toContain(`  ${c}`);
    const sh = await cli(["search", "--help"]);
    expect(sh.stdout).toContain("--range");
    const bad = await cli(["frobnicate"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('memvoy: unknown command "frobnicate" (see memvoy --help)\n');
  });

  test("help COMMAND SUBCOMMAND prints what COMMAND SUBCOMMAND --help prints", async () => {
    const help = await cli(["help", "errors", "record"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toBe((await cli(["errors", "record", "--help"])).stdout);
    expect(help.stdout).toContain("Usage: memvoy errors record");
    const typo = await cli(["help", "errors", "recrod"]);
    expect([typo.code, typo.stdout, typo.stderr]).toEqual([
      2,
      "",
      'memvoy: errors: unknown subcommand "recrod": use record, search, list, show, rm or sweep\n',
    ]);
  });

  test("daemon start, run or restart (no such subcommands) says how the daemon is run", async () => {
    const home = tempHome();
    const start = await cli(["daemon", "start"], { home });
    expect(start.code).toBe(2);
    expect(start.stderr).toBe(
      'memvoy: daemon: unknown subcommand "start": use status or stop; to run the daemon: memvoy --daemon (it stays in the foreground: run it under systemd or in a container, see memvoy daemon --help)\n',
    );
    expect((await cli(["daemon", "restart"], { home })).stderr).toContain(
      "to restart it: memvoy daemon stop, then memvoy --daemon",
    );
    expect((await cli(["daemon", "bogus"], { home })).stderr).toBe(
      'memvoy: daemon: unknown subcommand "bogus": use status or stop\n',
    );
  });

  test("help takes --home as every command does: its value is no topic", async () => {
    const home = tempHome();
    const main = await cli(["help", "--home", home]);
    expect(main.stderr).toBe("");
    expect(main.code).toBe(0);
    expect(main.stdout).toBe((await cli(["--help"])).stdout);
    const topic = await cli(["help", "--home", home, "search"]);
    expect(topic.stdout).toBe((await cli(["search", "--help"])).stdout);
  });

  test("a mistyped or misplaced option before the command or subcommand is named, not its value taken for either", async () => {
    const home = tempHome();
    const typo = await cli(["--hme", home, "sessions"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe("memvoy: unknown option --hme: did you mean --home? (see memvoy --help)\n");
    const alone = await cli(["--frobnicate"]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toBe("memvoy: unknown option --frobnicate (see memvoy --help)\n");
    // Before a subcommand word, an option of the subcommand is named as out of place.
    const early = await cli(["errors", "--limit", "5", "list"], { home });
    expect(early.code).toBe(2);
    expect(early.stderr).toBe(
      "memvoy: errors: --limit goes after the subcommand: memvoy errors SUBCOMMAND --limit ... (see memvoy errors --help)\n",
    );
    const stop = await cli(["daemon", "--timeout", "5", "stop"], { home });
    expect(stop.code).toBe(2);
    expect(stop.stderr).toContain("daemon: --timeout goes after the subcommand");
    // The global options still stand there.
    const ok = await cli(["--json", "--verbose", "--home", home, "sessions"]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual([]);
  });

  test("add, history, search, context, sessions, reset, rm with --json print one JSON document", async () => {
    const home = tempHome();
    const add = await cli(
      [
        "add",
        "s",
        "--role",
        "user",
        "--content",
        "where is the deploy script?",
        "--at",
        "2026-03-04 05:06:07",
        "--sender",
        "ann",
        "--json",
      ],
      { home },
    );
    expect(add.code).toBe(0);
    const { ids } = JSON.parse(add.stdout);
    expect(ids).toHaveLength(1);
    const jsonl =
      '{"role":"assistant","content":"in scripts/deploy.sh","sendAt":"2026-03-04T05:06:08.000000001Z"}\n\n{"role":"user","content":"thanks","sendAt":1772600769123456789}\n';
    expect((await cli(["add", "s", "--json"], { home, stdin: jsonl })).code).toBe(0);
    const hist = JSON.parse((await cli(["history", "s", "--json"], { home })).stdout);
    expect(hist.messages.map((m: { content: string }) => m.content)).toEqual([
      "where is the deploy script?",
      "in scripts/deploy.sh",
      "thanks",
    ]);
    // --at is local time (TZ=UTC in the test environment); JSONL times round-trip to the nanosecond.
    expect(hist.messages.map((m: { sendAt: string }) => m.sendAt)).toEqual([
      "2026-03-04T05:06:07.000000000Z",
      "2026-03-04T05:06:08.000000001Z",
      "2026-03-04T05:06:09.123456789Z",
    ]);
    expect(hist.messages[0].sender).toBe("ann");
    const search = JSON.parse((await cli(["search", "deploy", "--json"], { home })).stdout);
    expect(search.hits.map((h: { role: string }) => h.role).sort()).toEqual(["assistant", "user"]);
    // A pasted trace that matches nothing is named by its start, not echoed whole.
    const trace = `Traceback (most recent call last):\n  File "/srv/zz_app.py", line 9\n${"qqzz ".repeat(400)}`;
    const none = await cli(["search", trace], { home });
    expect(none.stdout).toStartWith(`no matches for ${JSON.stringify(`${trace.slice(0, 79)}…`)}: `);
    expect(none.stdout.length).toBeLessThan(300);
    expect(search.hits[0]).toMatchObject({ session: "s", source: "recent", tier: "recent" });
    expect(typeof search.hits[0].score).toBe("number");
    const ctx = JSON.parse((await cli(["context", "s", "--input", "next?", "--json"], { home })).stdout);
    expect(ctx.messages.at(-1)).toMatchObject({ role: "user", content: "next?" });
    // --input - takes the input from stdin: longer than a command line may be (128 KiB on Linux), and UTF-8 only.
    const long = `${"ä".repeat(100_000)} end`;
    const piped = await cli(["context", "s", "--input", "-", "--json"], { home, stdin: long });
    expect(JSON.parse(piped.stdout).messages.at(-1)).toMatchObject({ role: "user", content: long });
    // `echo "$input" |` ends it with a newline that is not part of it: one is dropped, as add drops it.
    const echoed = await cli(["context", "s", "--input", "-", "--json"], { home, stdin: "next?\n\n" });
    expect(JSON.parse(echoed.stdout).messages.at(-1)).toMatchObject({ role: "user", content: "next?\n" });
    const latin1 = await cli(["context", "s", "--input", "-"], {
      home,
      stdin: new Uint8Array([0x63, 0x61, 0x66, 0xe9]),
    });
    expect([latin1.code, latin1.stderr.trim()]).toEqual([
      2,
      "memvoy: context: stdin is not valid UTF-8; nothing was written",
    ]);
    const sessions = JSON.parse((await cli(["sessions", "--json"], { home })).stdout);
    expect(sessions).toEqual([{ id: "s", messages: 3, lastActivity: expect.any(String), hasSummary: false }]);
    for (const args of [
      ["config", "show"],
      ["config", "path"],
      ["config", "check"],
      ["doctor"],
      ["reset", "s"],
      ["rm", "s"],
    ]) {
      const r = await cli([...args, "--json"], { home });
      expect(r.code).toBe(0);
      expect(() => JSON.parse(r.stdout)).not.toThrow();
    }
  });

  test("the --at time is read in the local timezone", async () => {
    const home = tempHome();
    await cli(["add", "s", "--role", "user", "--content", "hi", "--at", "2026-03-04 08:00"], {
      home,
      env: { TZ: "Asia/Taipei" },
    });
    const hist = JSON.parse((await cli(["history", "s", "--json"], { home })).stdout);
    expect(hist.messages[0].sendAt).toBe("2026-03-04T00:00:00.000000000Z");
  });

  test("bad input: a clear one-line error, exit 2, nothing changed", async () => {
    const home = tempHome();
    await cli(["add", "s", "--role", "user", "--content", "keep me"], { home });
    const before = await snapshot(home);
    const cases: [string[], string | Uint8Array | undefined, RegExp][] = [
      [["add", "../x", "--role", "user", "--content", "x"], undefined, /invalid session id "\.\.\/x"/],
      [["add", "a/b", "--role", "user", "--content", "x"], undefined, /invalid session id "a\/b"/],
      [["add", "", "--role", "user", "--content", "x"], undefined, /invalid session id ""/],
      [["add", ".hidden", "--role", "user", "--content", "x"], undefined, /invalid session id/],
      [["add", "s", "--role", "user", "--content", "   "], undefined, /content is empty/],
      [["add", "s", "--role", "wizard", "--content", "x"], undefined, /role must be user or assistant/],
      [
        ["add", "s", "--role", "user", "--content", "x", "--at", "yesterday-ish"],
        undefined,
        /invalid --at "yesterday-ish"/,
      ],
      [["add", "s", "--role", "user"], "a\u0000b", /NUL character at offset 1/],
      [["add", "s"], '{"role":"user","content":"x\\u0000y"}\n', /stdin line 1: content contains a NUL character/],
      [["add", "s"], '{"role":"user","content":"lone \\ud800 surrogate"}\n', /not valid Unicode/],
      [["add", "s", "--role", "user"], new Uint8Array([0x68, 0xff, 0xfe, 0x69]), /not valid UTF-8/],
      [
        ["add", "s"],
        '{"role":"user","content":"ok line"}\n{"role":"user","content":"broken\n',
        /stdin line 2: not valid JSON; nothing was written/,
      ],
      [
        ["add", "s"],
        '{"role":"user","content":"ok"}\n{"role":"robot","content":"x"}\n',
        /stdin line 2: role must be user or assistant$/m,
      ],
      // Worded as add_messages, the HTTP API and the library word them.
      [["add", "s"], '{"role":"user"}\n', /stdin line 1: content: missing$/m],
      [["add", "s"], '"just text"\n', /stdin line 1: must be an object with role and content$/m],
      [["add", "s"], '{"role":"user","content":"ok","extra":1}\n', /stdin line 1: extra: unknown field/],
      [["add", "s", "--role", "user", "--content", "x", "--bogus"], undefined, /unknown option --bogus/],
      [["search"], undefined, /missing QUERY/],
      [["search", "x", "--range", "2w"], undefined, /invalid range "2w"/],
      [["search", "x", "--limit", "ten"], undefined, /--limit must be a whole number/],
      // A one-value flag given twice with different values: the last one must not win unseen.
      [
        ["search", "x", "--limit", "3", "--limit", "5"],
        undefined,
        /search: --limit is given twice with different values/,
      ],
      [["search", "x", "--session", "a", "--session=b"], undefined, /search: --session is given twice/],
      [
        ["add", "s", "--role", "user", "--role", "assistant", "--content", "x"],
        undefined,
        /add: --role is given twice/,
      ],
      // The same longest query as the library, the HTTP API and MCP.
      [["search", "x".repeat(10_001)], undefined, /query must be at most 10000 characters \(it has 10001\)/],
      [["history", "../x"], undefined, /invalid session id/],
      [["rm", "nope"], undefined, /no such session "nope"/],
    ];
    for (const [args, stdin, pattern] of cases) {
      const r = await cli(args, { home, stdin });
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr).toMatch(pattern);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
    }
    expect(await snapshot(home)).toEqual(before);
    expect(existsSync(join(home, "sessions", "x"))).toBe(false);
  });

  test("--home given twice with different values is refused before either home is made", async () => {
    const root = tempHome();
    const [a, b] = [join(root, "a"), join(root, "b")];
    for (const args of [
      ["--home", a, "--home", b, "sessions"],
      ["--home", a, "add", "s", "--role", "user", "--content", "x", "--home", b],
      ["--daemon", "--home", a, "--home", b],
    ]) {
      const r = await cli(args);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr).toMatch(/^memvoy: [\w-]+: --home is given twice with different values: give it once/);
      expect(existsSync(a) || existsSync(b)).toBe(false);
    }
    // The same value twice is no conflict (a wrapper's --home and the user's own).
    expect((await cli(["--home", a, "add", "s", "--role", "user", "--content", "x", "--home", a])).code).toBe(0);
  });

  test("a bad session id is refused by every command that takes one before any file is touched", async () => {
    const home = join(tempHome(), "home");
    for (const args of [
      ["add", "../x", "--role", "user", "--content", "x"],
      ["history", "../x"],
      ["context", "../x"],
      ["summary", "../x"],
      ["summarize", "../x"],
      ["reset", "../x"],
      ["rm", "../x"],
      ["export", "../x"],
      ["export", "ok", "a/b"],
      ["search", "q", "--session", "../x"],
    ]) {
      const r = await cli(args, { home });
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr).toMatch(/^memvoy: invalid session id "(\.\.\/x|a\/b)"/);
      expect(existsSync(home)).toBe(false);
    }
  });

  test("a 10 MB message is refused with the limit named; a message under the limit is stored and found", async () => {
    const home = tempHome();
    const big = "word ".repeat(2 * 1024 * 1024);
    const r = await cli(["add", "s", "--role", "user"], { home, stdin: big });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/content is 10\.0 MiB, over limits\.max_message_bytes \(1\.0 MiB\)/);
    const ok = await cli(["add", "s", "--role", "user"], { home, stdin: "needle " + "hay ".repeat(200_000) });
    expect(ok.code).toBe(0);
    const found = JSON.parse((await cli(["search", "needle", "--json"], { home })).stdout);
    expect(found.hits).toHaveLength(1);
  });

  test("config: an unknown key or a wrong type exits 2 naming the key and the file; env overrides apply", async () => {
    const home = tempHome();
    mkdirSync(home, { recursive: true });
    const file = join(home, "config.toml");
    writeFileSync(file, "[limits]\nmax_history_byts = 10\n");
    let r = await cli(["config", "check"], { home });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `memvoy: config error in ${file}: limits.max_history_byts: unknown key (did you mean limits.max_history_bytes?)\n`,
    );
    r = await cli(["add", "s", "--role", "user", "--content", "x"], { home });
    expect(r.code).toBe(2);
    writeFileSync(file, '[limits]\nmax_history_messages = "sixteen"\n');
    r = await cli(["config", "check"], { home });
    expect(r.stderr).toMatch(
      new RegExp(`config error in ${file}: limits.max_history_messages: Invalid type: Expected number`),
    );
    writeFileSync(file, "[limits\n");
    r = await cli(["config", "check"], { home });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`config error in ${file}`);
    writeFileSync(file, "[limits]\nmax_history_messages = 4\n");
    r = await cli(["config", "show", "--json"], { home, env: { MEMVOY_SUMMARY_MODEL: "claude-haiku-5-5" } });
    expect(JSON.parse(r.stdout)).toMatchObject({
      limits: { max_history_messages: 4 },
      summary: { model: "claude-haiku-5-5" },
    });
    r = await cli(["config", "check"], { home, env: { MEMVOY_LIMITS_MAX_HISTORY_MESSAGES: "lots" } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("MEMVOY_* environment: limits.max_history_messages");
    // A key set from the environment is named with its variable, the place to correct it.
    expect(r.stderr).toContain(
      'limits.max_history_messages (MEMVOY_LIMITS_MAX_HISTORY_MESSAGES): Invalid type: Expected number but received "lots"',
    );
    r = await cli(["config", "check"], { home, env: { MEMVOY_HTTP_ENABLED: "no", MEMVOY_LIMITS_MAX_HISTORY: "3" } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('http.enabled (MEMVOY_HTTP_ENABLED): Invalid type: Expected boolean but received "no"');
    expect(r.stderr).toContain("limits.max_history (MEMVOY_LIMITS_MAX_HISTORY): unknown key");
    // With no config.toml, the error is the environment's alone: no file to look in is named.
    rmSync(file);
    r = await cli(["config", "check"], { home, env: { MEMVOY_SUMMARY_MODLE: "claude-haiku-5-5" } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "memvoy: config error in the MEMVOY_* environment: summary.modle (MEMVOY_SUMMARY_MODLE): unknown key (did you mean MEMVOY_SUMMARY_MODEL?)\n",
    );
  });

  test("home resolution: --home, then MEMVOY_HOME, then XDG_CONFIG_HOME", async () => {
    const a = tempHome();
    const x = tempHome();
    expect((await cli(["config", "path"], { env: { MEMVOY_HOME: a } })).stdout.trim()).toBe(join(a, "config.toml"));
    expect((await cli(["config", "path"], { env: { XDG_CONFIG_HOME: x } })).stdout.trim()).toBe(
      join(x, "memvoy", "config.toml"),
    );
    expect((await cli(["config", "path", "--home", x], { env: { MEMVOY_HOME: a } })).stdout.trim()).toBe(
      join(x, "config.toml"),
    );
    // A relative XDG_CONFIG_HOME is ignored, as the XDG spec says: the home does not follow the current folder.
    const user = tempHome();
    expect(
      (await cli(["config", "path"], { env: { HOME: user, XDG_CONFIG_HOME: "relative/config" } })).stdout.trim(),
    ).toBe(join(user, ".config", "memvoy", "config.toml"));
  });

  test("an empty --home is refused with exit 2 before anything is created; an empty MEMVOY_HOME counts as unset", async () => {
    const user = tempHome();
    for (const args of [
      ["--home", "", "sessions"],
      ["sessions", "--home="],
      ["--home", "", "add", "s", "--role", "user", "--content", "x"],
      ["errors", "list", "--home", ""],
      ["--home", ""],
      ["--home", "", "--version"],
    ]) {
      const r = await cli(args, { env: { HOME: user } });
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr).toBe(
        "memvoy: --home is empty: name a folder, or leave --home out for the default home (see memvoy --help)\n",
      );
    }
    expect(existsSync(join(user, ".config"))).toBe(false);
    const r = await cli(["config", "path"], { env: { HOME: user, MEMVOY_HOME: "" } });
    expect(r.stdout.trim()).toBe(join(user, ".config", "memvoy", "config.toml"));
  });

  test("a misspelt option or command is named with the one it most likely means; other unknown options keep their hint", async () => {
    const home = tempHome();
    for (const [args, line] of [
      [
        ["search", "deploy", "--sesion", "s1"],
        "search: unknown option --sesion: did you mean --session? (see memvoy search --help)",
      ],
      [
        ["search", "deploy", "--Session", "s1"],
        "search: unknown option --Session: did you mean --session? (see memvoy search --help)",
      ],
      [
        ["history", "s", "--lats", "2"],
        "history: unknown option --lats: did you mean --last? (see memvoy history --help)",
      ],
      [
        ["errors", "list", "--toool", "git"],
        "errors list: unknown option --toool: did you mean --tool? (see memvoy errors list --help)",
      ],
      [["--jsn", "sessions"], "unknown option --jsn: did you mean --json? (see memvoy --help)"],
      [["serach", "deploy"], 'unknown command "serach": did you mean search? (see memvoy --help)'],
      [["help", "hisotry"], 'unknown command "hisotry": did you mean history? (see memvoy --help)'],
      [
        ["search", "deploy", "--frobnicate"],
        "search: unknown option --frobnicate (see memvoy search --help; a query that starts with - goes after --: memvoy search -- --frobnicate)",
      ],
    ] as const) {
      const r = await cli([...args], { home });
      expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 2, stderr: `memvoy: ${line}\n` });
    }
  });

  test("an option or nothing after --home is refused with exit 2: no home named --json is made in the current folder", async () => {
    // cli() runs memvoy in tmpdir(): a home taken from "--json" would be made there.
    const made = join(tmpdir(), "--json");
    for (const args of [
      ["--home", "--json", "sessions"],
      ["sessions", "--home", "--json"],
      ["errors", "--home", "--json", "list"],
      ["search", "x", "--home", "--json"],
    ]) {
      const r = await cli(args);
      expect({ args, code: r.code, stderr: r.stderr }).toEqual({
        args,
        code: 2,
        stderr:
          "memvoy: --home needs a folder, not the option --json (a folder whose name starts with -: --home ./--json)\n",
      });
      expect(existsSync(made)).toBe(false);
    }
    const bare = await cli(["--home"]);
    expect({ code: bare.code, stderr: bare.stderr }).toEqual({
      code: 2,
      stderr: "memvoy: --home needs a folder (see memvoy --help)\n",
    });
    // written inline, the value is taken as given
    const home = tempHome();
    const inline = await cli(["add", "s1", "--role", "user", "--content", "x", `--home=${join(home, "-x")}`]);
    expect(inline.code).toBe(0);
    expect(existsSync(join(home, "-x", "sessions"))).toBe(true);
  });
});

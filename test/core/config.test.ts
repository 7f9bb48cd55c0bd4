// config.toml: [summary].decision_model with the top-level alias, every validation problem reported with its
// key path, TOML syntax errors with line and column, and `config check` with no config.toml.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../../src/config/load.ts";
import { cli, removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

function configFile(text: string): string {
  const home = tempHome();
  mkdirSync(home, { recursive: true });
  const file = join(home, "config.toml");
  writeFileSync(file, text);
  return file;
}

test("[summary].decision_model is accepted; the top-level key is its alias; both agree after loading", () => {
  const a = loadConfig(configFile('[summary]\ndecision_model = "claude-haiku-5-5"\n'), {});
  expect(a.decision_model).toBe("claude-haiku-5-5");
  expect(a.summary.decision_model).toBe("claude-haiku-5-5");
  const b = loadConfig(configFile('decision_model = "claude-haiku-5-5"\n'), {});
  expect(b.summary.decision_model).toBe("claude-haiku-5-5");
  const same = loadConfig(configFile('decision_model = "m"\n[summary]\ndecision_model = "m"\n'), {});
  expect(same.decision_model).toBe("m");
  const env = loadConfig(configFile(""), { MEMVOY_SUMMARY_DECISION_MODEL: "from-env" });
  expect(env.decision_model).toBe("from-env");
});

test("an environment override of either decision_model name replaces the file's value under both names", async () => {
  for (const [text, name] of [
    ['[summary]\ndecision_model = "claude-haiku-5-5"\n', "MEMVOY_DECISION_MODEL"],
    ['decision_model = "claude-haiku-5-5"\n', "MEMVOY_SUMMARY_DECISION_MODEL"],
  ] as const) {
    const file = configFile(text);
    const c = loadConfig(file, { [name]: "claude-opus-5" });
    expect([c.decision_model, c.summary.decision_model]).toEqual(["claude-opus-5", "claude-opus-5"]);
    // An empty override turns the decision model off.
    const off = loadConfig(file, { [name]: "" });
    expect([off.decision_model, off.summary.decision_model]).toEqual(["", ""]);
    const r = await cli(["config", "check"], { home: join(file, ".."), env: { [name]: "claude-opus-5" } });
    expect([r.code, r.stderr]).toEqual([0, ""]);
  }
  // Both names in the environment, differing: still refused.
  expect(() => loadConfig(configFile(""), { MEMVOY_DECISION_MODEL: "a", MEMVOY_SUMMARY_DECISION_MODEL: "b" })).toThrow(
    /differ/,
  );
});

test("environment overrides of every value type: float, array, whole number, boolean, text", async () => {
  const c = loadConfig(configFile(""), {
    MEMVOY_SEARCH_MIN_SCORE: "0.35",
    MEMVOY_IMPORT_SOURCES: '["claude-code", "codex"]',
    MEMVOY_DAEMON_LOG_MAX_BYTES: "65536",
    MEMVOY_IMPORT_SUMMARIZE: "true",
    MEMVOY_SUMMARY_CRON: "*/5 * * * * *",
    MEMVOY_REPLY_LANG: "zh-TW",
  });
  expect(c.search.min_score).toBe(0.35);
  expect(c.import.sources).toEqual(["claude-code", "codex"]);
  expect([c.daemon.log_max_bytes, c.import.summarize, c.summary.cron, c.reply_lang]).toEqual([
    65536,
    true,
    "*/5 * * * * *",
    "zh-TW",
  ]);
  // Not an array after all: the key is named.
  expect(() => loadConfig(configFile(""), { MEMVOY_IMPORT_SOURCES: "[claude-code" })).toThrow(/import\.sources/);
  const r = await cli(["config", "check"], { home: tempHome(), env: { MEMVOY_SEARCH_MIN_SCORE: "0.2" } });
  expect([r.code, r.stderr]).toEqual([0, ""]);
});

test("both decision_model keys set to different values: a config error naming both, exit 2", async () => {
  const file = configFile('decision_model = "a"\n[summary]\ndecision_model = "b"\n');
  expect(() => loadConfig(file, {})).toThrow(ConfigError);
  expect(() => loadConfig(file, {})).toThrow(/summary\.decision_model \("b"\) and decision_model \("a"\) differ/);
  const home = join(file, "..");
  const r = await cli(["config", "check"], { home });
  expect(r.code).toBe(2);
  expect(r.stderr.trim().split("\n")).toHaveLength(1);
});

test("every validation problem is reported, each with its key path", async () => {
  const file = configFile(
    'reply_lang = ""\n[limits]\nmax_history_byts = 10\nmax_history_messages = "sixteen"\n[summary]\nchunk_chars = 5\n[nosuch]\nx = 1\n',
  );
  const r = await cli(["config", "check"], { home: join(file, "..") });
  expect(r.code).toBe(2);
  const line = r.stderr.trim();
  expect(line.split("\n")).toHaveLength(1);
  expect(line).toContain(`config error in ${file}: `);
  for (const key of [
    "reply_lang:",
    "limits.max_history_byts: unknown key",
    "limits.max_history_messages:",
    "summary.chunk_chars:",
    "nosuch: unknown key",
  ])
    expect(line).toContain(key);
});

test("a timeout or interval past a timer's longest delay (2^31-1 ms) is refused, as it would fire at once", async () => {
  const file = configFile(
    "[summary]\ntimeout_ms = 3000000000\n[context]\nrelevance_timeout_ms = 2147483648\n[embedder]\ntimeout_ms = 1e10\n[daemon]\nembed_interval_ms = 9999999999\n",
  );
  const r = await cli(["config", "check"], { home: join(file, "..") });
  expect(r.code).toBe(2);
  for (const key of [
    "summary.timeout_ms:",
    "context.relevance_timeout_ms:",
    "embedder.timeout_ms:",
    "daemon.embed_interval_ms:",
  ])
    expect(r.stderr).toContain(key);
  const longest = configFile("[summary]\ntimeout_ms = 2147483647\n");
  expect(loadConfig(longest, {}).summary.timeout_ms).toBe(2147483647);
});

test("an HTTP embedder's settings without embedder.provider are refused: the builtin one would ignore them", async () => {
  const file = configFile('[embedder]\nbase_url = "http://127.0.0.1:11434/v1"\nmodel = "nomic-embed-text"\n');
  const r = await cli(["config", "check"], { home: join(file, "..") });
  expect(r.code).toBe(2);
  expect(r.stderr).toBe(
    `memvoy: config error in ${file}: embedder.base_url, embedder.model are set but embedder.provider is not (the builtin embedder, the default, ignores them): set provider = "openai", "ollama" or "voyage", or "builtin"\n`,
  );
  expect(() => loadConfig(configFile("[embedder]\ndimensions = 512\n"), {})).toThrow("embedder.dimensions is set");
  expect(() => loadConfig(configFile(""), { MEMVOY_EMBEDDER_MODEL: "m" })).toThrow(
    "embedder.model (MEMVOY_EMBEDDER_MODEL) is set",
  );
  // The provider named anywhere, the builtin one included, is a choice made.
  expect(loadConfig(file, { MEMVOY_EMBEDDER_PROVIDER: "ollama" }).embedder.provider).toBe("ollama");
  const builtin = configFile('[embedder]\nprovider = "builtin"\nmodel = "nomic-embed-text"\n');
  expect(loadConfig(builtin, {}).embedder.provider).toBe("builtin");
  expect(loadConfig(configFile('[embedder]\nbase_url = ""\nbatch_size = 8\n'), {}).embedder.batch_size).toBe(8);
});

test("every unknown key of a table is named, not only the first", () => {
  const file = configFile(
    'bogus = 1\n[limits]\nmax_history_byts = 10\nmax_message_byts = 5\n[nosuch]\n[sumary]\nmodel = "x"\n',
  );
  let message = "";
  try {
    loadConfig(file, {});
  } catch (err) {
    message = (err as Error).message;
  }
  for (const key of ["bogus", "limits.max_history_byts", "limits.max_message_byts", "nosuch", "sumary"])
    expect(message).toContain(`${key}: unknown key`);
  expect(message.match(/unknown key/g)).toHaveLength(5);
});

test("an unknown key or value names what it most likely means; a table given as an array, or a date, is named as such", async () => {
  const errorOf = (text: string, env: Record<string, string> = {}) => {
    try {
      loadConfig(configFile(text), env);
    } catch (err) {
      return (err as Error).message.replace(/^config error in .*?: /, "");
    }
    return "no error";
  };
  expect(errorOf('[summary]\nmodle = "x"\n[limit]\nmax_history_messages = 3\n')).toBe(
    "summary.modle: unknown key (did you mean summary.model?); limit: unknown key (did you mean limits?)",
  );
  // A key in the wrong table, or with no table, names the one table that has it.
  expect(errorOf("max_history_messages = 3\n")).toBe(
    "max_history_messages: unknown key (did you mean limits.max_history_messages?)",
  );
  expect(errorOf('model = "x"\n')).toBe("model: unknown key");
  // A TOML date is named as one, not by its class (TomlDate, or a minified name in the binary).
  expect(errorOf("reply_lang = 2026-01-01\n")).toBe(
    "reply_lang: Invalid type: Expected string but received a TOML date or time (2026-01-01)",
  );
  // A value of a closed list names itself and the one it most likely misspells.
  expect(errorOf('[import]\nsources = ["codex", "cladue-code"]\n')).toBe(
    'import.sources.1: "cladue-code" is not a source the daemon imports live: did you mean claude-code? (use claude-code, codex, opencode, gemini)',
  );
  expect(errorOf("", { MEMVOY_SUMMARY_MODLE: "x" })).toBe(
    "summary.modle (MEMVOY_SUMMARY_MODLE): unknown key (did you mean MEMVOY_SUMMARY_MODEL?)",
  );
  // [[limits]] and limits = [...] were read as a table with keys 0, 1, ...; limits = [] passed as an empty one.
  for (const text of ["[[limits]]\nmax_history_messages = 3\n", "limits = [1, 2]\n", "limits = []\n"])
    expect(errorOf(text)).toBe("limits: expected a table ([limits]), not an array");
  const r = await cli(["config", "check"], { home: join(configFile("[[summary]]\n[[summary]]\n"), "..") });
  expect([r.code, r.stderr.includes("summary: expected a table ([summary]), not an array")]).toEqual([2, true]);
});

test("a TOML syntax error names the line and the column", async () => {
  const file = configFile('reply_lang = "auto"\n[limits\nmax_history_messages = 4\n');
  const r = await cli(["config", "check"], { home: join(file, "..") });
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(new RegExp(`config error in ${file}: TOML syntax error at line 2, column \\d+: `));
});

test("a table or key defined twice is named, a string left open and a UTF-16 file say so", () => {
  const errorOf = (text: string) => {
    try {
      loadConfig(configFile(text), {});
    } catch (err) {
      return (err as Error).message.replace(/^config error in .*?: /, "");
    }
    return "no error";
  };
  const twice = "is defined twice (each table and key may be defined once)";
  expect(errorOf('[summary]\nmodel = "a"\n[limits]\n[summary]\nmodel = "b"\n')).toBe(
    `TOML syntax error at line 4, column 2: [summary] ${twice}`,
  );
  expect(errorOf('reply_lang = "en"\nreply_lang = "de"\n')).toBe(
    `TOML syntax error at line 2, column 1: reply_lang ${twice}`,
  );
  // The value is never quoted: it may be a secret.
  expect(errorOf('[archive]\nurl = "postgres://u@h/db"\nurl = "postgres://u:hunter2@h/db"\n')).toBe(
    `TOML syntax error at line 3, column 1: url ${twice}`,
  );
  // UTF-16, as Windows PowerShell's `>` writes it, with or without its byte order mark.
  for (const bytes of [
    [0xff, 0xfe, 0x5b, 0, 0x6c, 0],
    [0xfe, 0xff, 0, 0x5b, 0, 0x6c],
    [0x5b, 0, 0x6c, 0],
  ]) {
    const file = configFile("");
    writeFileSync(file, Buffer.from(bytes));
    expect(() => loadConfig(file, {})).toThrow(
      `config error in ${file}: TOML syntax error: the file is not UTF-8 (UTF-16?): save it as UTF-8`,
    );
  }
  expect(errorOf("\ufeff[limits]\r\nmax_history_messages = 5\r\n")).toBe("no error");
  expect(errorOf('[summary]\nmodel = "claude\n')).toBe(
    "TOML syntax error at line 2, column 16: a string is not closed on its line (a quote is missing)",
  );
});

test("config check with no config.toml says that the defaults are in use", async () => {
  const home = tempHome();
  const r = await cli(["config", "check"], { home });
  expect(r.code).toBe(0);
  expect(r.stdout).toBe(`no config.toml at ${join(home, "config.toml")}: the defaults are in use\n`);
  const j = await cli(["config", "check", "--json"], { home });
  expect(JSON.parse(j.stdout)).toMatchObject({ ok: true, exists: false, overrides: [] });
});

test("config check names the MEMVOY_* variables that set a key, with or without config.toml", async () => {
  const home = tempHome();
  const env = { MEMVOY_LIMITS_MAX_HISTORY_MESSAGES: "5", MEMVOY_REPLY_LANG: "en" };
  const r = await cli(["config", "check"], { home, env });
  expect(r.stdout).toBe(
    `no config.toml at ${join(home, "config.toml")}: the defaults are in use, with MEMVOY_LIMITS_MAX_HISTORY_MESSAGES, MEMVOY_REPLY_LANG from the environment\n`,
  );
  writeFileSync(join(home, "config.toml"), "[limits]\nmax_history_bytes = 8192\n");
  const withFile = await cli(["config", "check"], { home, env });
  expect(withFile.stdout).toBe(
    `${join(home, "config.toml")}: ok, with MEMVOY_LIMITS_MAX_HISTORY_MESSAGES, MEMVOY_REPLY_LANG from the environment\n`,
  );
  const j = await cli(["config", "check", "--json"], { home, env });
  expect(JSON.parse(j.stdout)).toMatchObject({
    ok: true,
    exists: true,
    overrides: ["MEMVOY_LIMITS_MAX_HISTORY_MESSAGES", "MEMVOY_REPLY_LANG"],
  });
});

test("config check and doctor name a MEMVOY_* variable memvoy does not read, with the one it most likely misspells", async () => {
  const home = tempHome();
  const env = {
    MEMVOY_HOEM: home,
    MEMVOY_MAX_HISTORY_MESSAGES: "5",
    MEMVOY_S3_ACCESS_KEY_ID: "k",
    MEMVOY_TOOLS_DIR: "/t",
  };
  const r = await cli(["config", "check"], { home, env });
  expect(r.code).toBe(2);
  expect(r.stderr).toBe(
    "memvoy: config error in the environment: MEMVOY_HOEM (did you mean MEMVOY_HOME?), MEMVOY_MAX_HISTORY_MESSAGES (did you mean MEMVOY_LIMITS_MAX_HISTORY_MESSAGES?) are not variables memvoy reads, so they are ignored\n",
  );
  const doctor = await cli(["doctor", "--json"], { home, env });
  expect(doctor.code).toBe(1);
  expect(JSON.parse(doctor.stdout).findings.map((f: { problem: string }) => f.problem)).toEqual([
    "MEMVOY_HOEM is set, but memvoy reads no such variable and ignores it: did you mean MEMVOY_HOME?",
    "MEMVOY_MAX_HISTORY_MESSAGES is set, but memvoy reads no such variable and ignores it: did you mean MEMVOY_LIMITS_MAX_HISTORY_MESSAGES?",
  ]);
  // Other commands do not look for them; the variables memvoy reads outside config.toml's keys pass the check.
  expect((await cli(["add", "s", "--role", "user", "--content", "x"], { home, env })).code).toBe(0);
  const known = { MEMVOY_S3_SECRET_ACCESS_KEY: "s", MEMVOY_HOME: home, MEMVOY_SUMMARY_MODEL: "m" };
  expect((await cli(["config", "check"], { home, env: known })).code).toBe(0);
  expect((await cli(["doctor"], { home, env: known })).code).toBe(0);
});

test("doctor names a cron pattern the daemon refuses, from config.toml or the environment, instead of all good", async () => {
  const home = tempHome();
  writeFileSync(join(home, "config.toml"), '[summary]\ncron = "*/61 * * * *"\n');
  expect((await cli(["add", "s", "--role", "user", "--content", "x"], { home })).code).toBe(0);
  const env = { MEMVOY_DAEMON_SWEEP_CRON: "0 0 30 2 *" };
  const r = await cli(["doctor", "--json"], { home, env });
  expect(r.code).toBe(1);
  const report = JSON.parse(r.stdout);
  expect(report.ok).toBe(false);
  const problems = report.findings.map((f: { problem: string }) => f.problem);
  expect(problems).toHaveLength(2);
  expect(problems[0]).toStartWith('summary.cron: invalid cron pattern "*/61 * * * *": ');
  expect(problems[1]).toStartWith('daemon.sweep_cron (MEMVOY_DAEMON_SWEEP_CRON): invalid cron pattern "0 0 30 2 *": ');
  for (const p of problems) expect(p).toContain("memvoy --daemon refuses to start until it is fixed");
  const text = await cli(["doctor"], { home });
  expect(text.code).toBe(1);
  expect(text.stdout).not.toContain("all good");
  writeFileSync(join(home, "config.toml"), '[summary]\ncron = "*/15 * * * *"\n');
  expect((await cli(["doctor"], { home })).stdout).toContain("all good");
});

test("embedder.base_url that is no http(s) URL is refused by config check and at load, as the embedder would", async () => {
  for (const bad of ["not a url", "ftp://x", " "]) {
    const file = configFile(`[embedder]\nprovider = "ollama"\nbase_url = ${JSON.stringify(bad)}\n`);
    expect(() => loadConfig(file, {})).toThrow(/embedder\.base_url: expected http\(s\):\/\/host/);
    const r = await cli(["config", "check"], { home: join(file, "..") });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `memvoy: config error in ${file}: embedder.base_url: expected http(s)://host[:port][/path], e.g. http://127.0.0.1:11434/v1\n`,
    );
  }
  // A password in the URL never sits in config.toml (the environment may carry one), and the error does not repeat it.
  for (const withSecret of [
    "https://me:hunter2-secret@api.example.com/v1",
    "http://token-only@127.0.0.1:11434",
    "https://gateway.example/v1?api_key=hunter2-secret",
    "https://gateway.example/v1?api-version=1&access_token=token-only",
  ]) {
    const file = configFile(`[embedder]\nprovider = "openai"\nbase_url = ${JSON.stringify(withSecret)}\n`);
    expect(() => loadConfig(file, {})).toThrow(
      /embedder\.base_url includes a user, a password or a key in its query, which is refused here/,
    );
    expect(
      loadConfig(configFile(""), { MEMVOY_EMBEDDER_PROVIDER: "openai", MEMVOY_EMBEDDER_BASE_URL: withSecret }).embedder
        .base_url,
    ).toBe(withSecret);
    const r = await cli(["config", "check"], { home: join(file, "..") });
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain("hunter2");
    expect(r.stderr).not.toContain("token-only");
  }
  for (const good of [
    "",
    "http://127.0.0.1:11434",
    "https://api.example.com/v1/embeddings",
    "https://gateway.example/v1?api-version=2024-02-01",
  ])
    expect(
      loadConfig(configFile(`[embedder]\nprovider = "openai"\nbase_url = ${JSON.stringify(good)}\n`), {}).embedder
        .base_url,
    ).toBe(good);
});

test("a password in archive.url is refused in config.toml, however its parameter name is spelled", () => {
  for (const url of [
    "postgres://app:pw@db.example/mem",
    "postgres://app@db.example/mem?password=pw",
    "postgres://app@db.example/mem?sslmode=require&pass%77ord=pw",
    "postgres://app@db.example/mem?PASSWORD=pw",
  ]) {
    const file = configFile(`[archive]\nurl = ${JSON.stringify(url)}\n`);
    expect(() => loadConfig(file, {})).toThrow(/archive\.url includes a password, which is refused here/);
  }
  const ok = configFile(`[archive]\nurl = "postgres://app@db.example/mem?sslmode=require"\n`);
  expect(loadConfig(ok, {}).archive.url).toBe("postgres://app@db.example/mem?sslmode=require");
});

test("an archive URL that does not parse is a config error (exit 2) from config.toml or the environment", () => {
  const file = configFile("");
  expect(() => loadConfig(file, { MEMVOY_ARCHIVE_URL: "postgres://u@[bad/x" })).toThrow(
    /archive\.url \(MEMVOY_ARCHIVE_URL\): expected a postgres:\/\/user@host\/db URL \(this one does not parse\)/,
  );
  expect(() => loadConfig(configFile(`[archive]\nurl = "postgres://u@[bad/x"\n`), {})).toThrow(/does not parse/);
});

test("a ~ the shell did not expand (--home=~/x, MEMVOY_HOME=~/x) is the user's home, not a folder named ~", async () => {
  const user = tempHome();
  for (const [args, env] of [
    [["--home=~/mem", "config", "path"], { HOME: user }],
    [["--home", "~/mem", "config", "path"], { HOME: user }],
    [["config", "path"], { HOME: user, MEMVOY_HOME: "~/mem" }],
  ] as const) {
    const r = await cli([...args], { env: { ...env } });
    expect({ args, code: r.code, out: r.stdout }).toEqual({
      args,
      code: 0,
      out: `${join(user, "mem", "config.toml")}\n`,
    });
  }
  const r = await cli(["--home", "~", "config", "path"], { env: { HOME: user } });
  expect(r.stdout).toBe(`${join(user, "config.toml")}\n`);
});

test("spaces around a model id or a language tag are no part of it; one that is only spaces is refused", () => {
  const c = loadConfig(
    configFile(
      'reply_lang = " zh-TW "\n[summary]\nmodel = "claude-sonnet-5-5 "\ndecision_model = " claude-haiku-5-5"\n[embedder]\nprovider = "ollama"\nmodel = "nomic-embed-text\\n"\n',
    ),
    {},
  );
  expect([c.reply_lang, c.summary.model, c.decision_model, c.summary.decision_model, c.embedder.model]).toEqual([
    "zh-TW",
    "claude-sonnet-5-5",
    "claude-haiku-5-5",
    "claude-haiku-5-5",
    "nomic-embed-text",
  ]);
  expect(loadConfig(configFile(""), { MEMVOY_SUMMARY_MODEL: "claude-opus-5 " }).summary.model).toBe("claude-opus-5");
  expect(() => loadConfig(configFile('[summary]\nmodel = "  "\n'), {})).toThrow(/summary\.model/);
});

test("an environment override's number or boolean with spaces or a line end around it (an env file from Windows) is read", () => {
  const c = loadConfig(configFile(""), {
    MEMVOY_LIMITS_MAX_HISTORY_MESSAGES: "24\r",
    MEMVOY_IMPORT_SUMMARIZE: " true ",
    MEMVOY_SEARCH_MIN_SCORE: "0.25\n",
  });
  expect([c.limits.max_history_messages, c.import.summarize, c.search.min_score]).toEqual([24, true, 0.25]);
  expect(() => loadConfig(configFile(""), { MEMVOY_LIMITS_MAX_HISTORY_MESSAGES: "2 4" })).toThrow(
    /limits\.max_history_messages/,
  );
});

import { afterAll, describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  cleanup,
  cli,
  startDaemon,
  tempHome,
  waitFor,
  waitRunning,
  repoRoot,
  baseEnv,
} from "../fixture/daemon-process.ts";
import { CC_SESSION_B, writeClaudeProjects } from "../fixture/import/claude-code.ts";
import { holdWriterLock } from "../fixture/writer-lock-holder.ts";
import { readFileSync } from "node:fs";

afterAll(cleanup);

const turn = (uuid: string, parent: string, text: string) =>
  JSON.stringify({
    type: "user",
    uuid,
    parentUuid: parent,
    sessionId: CC_SESSION_B,
    cwd: "/home/dev/api",
    timestamp: new Date().toISOString(),
    message: { role: "user", content: text },
  }) + "\n";

/** One record of a reply streamed as several records (same message.id and requestId), holding one text block. */
const replyPart = (uuid: string, parent: string, text: string) =>
  JSON.stringify({
    type: "assistant",
    uuid,
    parentUuid: parent,
    sessionId: CC_SESSION_B,
    cwd: "/home/dev/api",
    requestId: "req_live_1",
    timestamp: new Date().toISOString(),
    message: { id: "msg_live_1", role: "assistant", content: [{ type: "text", text }] },
  }) + "\n";

/** The session's messages whose text holds `word`. */
async function holding(home: string, word: string): Promise<{ role: string; content: string }[]> {
  const r = await cli(home, ["history", `cc-${CC_SESSION_B}`, "--all", "--json"]);
  const { messages } = JSON.parse(r.stdout) as { messages: { role: string; content: string }[] };
  return messages.filter((m) => m.content.includes(word));
}

async function found(home: string, word: string): Promise<boolean> {
  const r = await cli(home, ["search", word, "--json"]);
  return r.code === 0 && JSON.parse(r.stdout).hits.length > 0;
}

describe("live capture", () => {
  test("the daemon with a 2-second [import] cron makes a new Claude Code turn keyword-searchable", async () => {
    const src = tempHome();
    writeClaudeProjects(src);
    const home = tempHome();
    writeFileSync(join(home, "config.toml"), '[import]\nsources = ["claude-code"]\ncron = "*/2 * * * * *"\n');
    const d = startDaemon(home, { CLAUDE_CONFIG_DIR: src });
    await waitRunning(d);
    await waitFor(() => found(home, "middleware"), 30_000, "the first import");
    const file = join(src, "projects", "-home-dev-api", `${CC_SESSION_B}.jsonl`);
    appendFileSync(file, turn("b-live", "b-4", "what about the zeppelin endpoint?"));
    await waitFor(() => found(home, "zeppelin"), 30_000, "the new turn to be captured");
    // A reply streamed as two records that land in two passes: the second block joins the first message.
    appendFileSync(file, replyPart("b-live-r1", "b-live", "The ocelot endpoint is deprecated."));
    await waitFor(() => found(home, "ocelot"), 30_000, "the first part of the reply");
    appendFileSync(file, replyPart("b-live-r2", "b-live-r1", "Use the narwhal endpoint instead."));
    await waitFor(() => found(home, "narwhal"), 30_000, "the rest of the reply");
    expect(await holding(home, "ocelot")).toEqual([
      expect.objectContaining({
        role: "assistant",
        content: "The ocelot endpoint is deprecated.\n\nUse the narwhal endpoint instead.",
      }),
    ]);
    // Imported sessions are not summarized unless [import] summarize = true.
    const due = await cli(home, ["sessions", "--source", "claude-code", "--json"]);
    expect(JSON.parse(due.stdout).length).toBe(5);
    d.proc.kill("SIGTERM");
    expect(await d.exited).toBe(0);
  }, 120_000);

  test("a capture pass waiting for another process's writer lock leaves the daemon's HTTP API answering", async () => {
    const src = tempHome();
    writeClaudeProjects(src);
    const home = tempHome();
    writeFileSync(join(home, "config.toml"), '[import]\nsources = ["claude-code"]\ncron = "* * * * * *"\n');
    const d = startDaemon(home, { CLAUDE_CONFIG_DIR: src });
    await waitRunning(d);
    await waitFor(() => found(home, "middleware"), 30_000, "the first import");
    const { url, token } = JSON.parse(readFileSync(join(home, "http.json"), "utf8"));
    const health = () =>
      fetch(`${url}/v1/health`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(2000) });
    // Another process (an import, a large add) holds the lock while a new turn waits to be captured.
    const holder = await holdWriterLock(home);
    appendFileSync(
      join(src, "projects", "-home-dev-api", `${CC_SESSION_B}.jsonl`),
      turn("b-held", "b-4", "what about the quetzal endpoint?"),
    );
    // Over three ticks of the capture: each pass finds the turn and waits for the lock; the daemon answers meanwhile.
    for (const until = performance.now() + 3000; performance.now() < until; ) {
      expect((await health()).status).toBe(200);
      await Bun.sleep(100);
    }
    expect(holder.proc.exitCode).toBeNull();
    await holder.release();
    await waitFor(() => found(home, "quetzal"), 30_000, "the turn, once the lock is free");
    d.proc.kill("SIGTERM");
    expect(await d.exited).toBe(0);
  }, 120_000);

  test("import --watch --json prints one JSON line per pass and picks up a new turn", async () => {
    const src = tempHome();
    const projects = writeClaudeProjects(src);
    const home = tempHome();
    const proc = Bun.spawn(
      [
        "bun",
        join(repoRoot, "src/index.ts"),
        "--home",
        home,
        "import",
        "claude-code",
        projects,
        "--watch",
        "--interval",
        "1",
        "--json",
      ],
      {
        env: baseEnv(),
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    let out = "";
    const decoder = new TextDecoder();
    void (async () => {
      for await (const chunk of proc.stdout) out += decoder.decode(chunk, { stream: true });
    })();
    const passes = () =>
      out
        .split("\n")
        .filter((l) => l.trim() !== "")
        .map((l) => JSON.parse(l) as { sources: { messages: { added: number; extended: number } }[] });
    await waitFor(() => passes().length >= 1, 30_000, "the first pass");
    expect(passes()[0]!.sources[0]!.messages.added).toBe(16);
    appendFileSync(join(projects, "-home-dev-api", `${CC_SESSION_B}.jsonl`), turn("b-w", "b-4", "watch this"));
    await waitFor(() => passes().some((p) => p.sources[0]!.messages.added === 1), 30_000, "a pass with the new turn");
    const seen = passes().length;
    appendFileSync(
      join(projects, "-home-dev-api", `${CC_SESSION_B}.jsonl`),
      replyPart("b-w1", "b-w", "Watching the ibis."),
    );
    await waitFor(
      () =>
        passes()
          .slice(seen)
          .some((p) => p.sources[0]!.messages.added === 1),
      30_000,
      "a pass with the first part of the reply",
    );
    appendFileSync(
      join(projects, "-home-dev-api", `${CC_SESSION_B}.jsonl`),
      replyPart("b-w2", "b-w1", "And the heron."),
    );
    await waitFor(
      () => passes().some((p) => p.sources[0]!.messages.extended === 1),
      30_000,
      "a pass extending the reply",
    );
    expect(await holding(home, "ibis")).toEqual([
      expect.objectContaining({ role: "assistant", content: "Watching the ibis.\n\nAnd the heron." }),
    ]);
    proc.kill("SIGINT");
    expect(await proc.exited).toBe(0);
  }, 120_000);

  test("import --watch ends with one line and exit 1 when its home is deleted, and recreates nothing", async () => {
    const projects = writeClaudeProjects(tempHome());
    const home = join(tempHome(), "h");
    const proc = Bun.spawn(
      ["bun", join(repoRoot, "src/index.ts"), "--home", home, "import", "claude-code", projects, "--watch"].concat([
        "--interval",
        "1",
        "--json",
      ]),
      { env: baseEnv(), stdout: "pipe", stderr: "pipe" },
    );
    let out = "";
    const decoder = new TextDecoder();
    void (async () => {
      for await (const chunk of proc.stdout) out += decoder.decode(chunk, { stream: true });
    })();
    await waitFor(() => out.includes("\n"), 30_000, "the first pass");
    rmSync(home, { recursive: true, force: true });
    // It went on failing each file every pass, forever.
    await waitFor(() => proc.exitCode !== null, 20_000, "the exit after the home was deleted");
    expect(proc.exitCode).toBe(1);
    expect(await new Response(proc.stderr).text()).toContain(
      `memvoy: the home ${home} was deleted or moved away while this process had it open`,
    );
    expect(existsSync(home)).toBe(false);
  }, 60_000);

  test("import --watch stopped by Ctrl-C during a long pass stops after the write under way, as a single import does", async () => {
    // A first pass over a large history: 150,000 messages of memvoy's export format.
    const file = join(tempHome(), "large.jsonl");
    const lines = ['{"type":"session","id":"large"}'];
    for (let i = 0; i < 150_000; i++)
      lines.push(
        JSON.stringify({
          type: "message",
          id: `01M9${String(i).padStart(22, "0")}`,
          session: "large",
          role: i % 2 ? "assistant" : "user",
          content: `message ${i} of a long history`,
          sendAt: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
        }),
      );
    writeFileSync(file, `${lines.join("\n")}\n`);
    const home = tempHome();
    const proc = Bun.spawn(
      ["bun", join(repoRoot, "src/index.ts"), "--home", home, "import", "jsonl", file, "--watch"],
      {
        env: baseEnv(),
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    let err = "";
    const decoder = new TextDecoder();
    void (async () => {
      for await (const chunk of proc.stderr) err += decoder.decode(chunk, { stream: true });
    })();
    try {
      // The pass is writing once the archive exists.
      await waitFor(() => existsSync(join(home, ".store", "history.db")), 30_000, "the pass writing");
      proc.kill("SIGINT");
      // Before, the pass went on to its end (every message), deaf to a second Ctrl-C too.
      await waitFor(() => proc.exitCode !== null, 30_000, "the exit after Ctrl-C");
      expect(proc.exitCode).toBe(130);
      expect(err).toContain("memvoy: import stopped by SIGINT after the write under way");
      const stored = await cli(home, ["history", "large", "--all", "--json"]);
      expect(JSON.parse(stored.stdout).messages.length).toBeLessThan(150_000);
    } finally {
      proc.kill("SIGKILL");
    }
  }, 120_000);

  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const)
    test(`import --watch with a long --interval stops at ${signal} between passes, not when the interval ends`, async () => {
      const projects = writeClaudeProjects(tempHome());
      const home = tempHome();
      const proc = Bun.spawn(
        ["bun", join(repoRoot, "src/index.ts"), "--home", home, "import", "claude-code", projects, "--watch"].concat([
          "--interval",
          "3600",
          "--json",
        ]),
        { env: baseEnv(), stdout: "pipe", stderr: "pipe" },
      );
      let out = "";
      const decoder = new TextDecoder();
      void (async () => {
        for await (const chunk of proc.stdout) out += decoder.decode(chunk, { stream: true });
      })();
      await waitFor(() => out.includes("\n"), 30_000, "the first pass");
      proc.kill(signal);
      // The interval is an hour: a stop that waited for it would time out here.
      await waitFor(() => proc.exitCode !== null, 20_000, "the exit after the signal");
      expect(proc.exitCode).toBe(0);
    }, 60_000);
});

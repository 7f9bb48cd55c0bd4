// add reads stdin in bounded memory: one message's text is refused once it passes the limit, without reading
// to the end; JSONL is parsed line by line and stored in parts, a bad line after a stored part reported exactly.
import { afterAll, expect, test } from "bun:test";
import { closeSync, openSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cli, removeTempHomes, repoRoot, tempHome } from "../fixture/home.ts";
import { processOutput } from "../fixture/process-output.ts";

afterAll(removeTempHomes);

/**
 * Run `memvoy add ARGS` with stdin fed `head`, then `chunk` again and again until the process exits, or `budget`
 * bytes were fed (far past where memvoy must stop reading): a process that stopped reading but has not exited yet
 * leaves what is written buffered in this one, so the feed has a bound.
 */
async function addFromEndlessStdin(home: string, args: string[], chunk: string, head = "", budget = 64 * 1024 * 1024) {
  const proc = Bun.spawn(["bun", join(repoRoot, "src/index.ts"), "--home", home, "add", ...args], {
    cwd: tmpdir(),
    env: { PATH: process.env.PATH!, HOME: tmpdir(), TZ: "UTC" },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const bytes = new TextEncoder().encode(chunk);
  let exited = false;
  void proc.exited.then(() => {
    exited = true;
  });
  const feed = (async () => {
    try {
      proc.stdin.write(head);
      for (let fed = 0; !exited && fed < budget; fed += bytes.length) {
        proc.stdin.write(bytes);
        await proc.stdin.flush();
      }
    } catch {
      // the pipe closed: the process stopped reading
    }
  })();
  const out = await processOutput(proc);
  await feed;
  return out;
}

function smallLimitHome(): string {
  const home = tempHome();
  writeFileSync(join(home, "config.toml"), "[limits]\nmax_message_bytes = 4096\n");
  return home;
}

test("one message's text on stdin that never ends is refused once it passes the limit, nothing written", async () => {
  const home = smallLimitHome();
  // memvoy counts up to 256 MiB to name the size, then stops reading.
  const r = await addFromEndlessStdin(home, ["s", "--role", "user"], "x".repeat(64 * 1024), "", 272 * 1024 * 1024);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain(
    "message: content is more than 256.0 MiB, over limits.max_message_bytes (4.0 KiB); the rest of stdin was not read",
  );
  expect((await cli(["sessions", "--json"], { home })).stdout.trim()).toBe("[]");
});

test("a JSONL line that never ends is refused by its line number, nothing written", async () => {
  const home = smallLimitHome();
  const head = `${JSON.stringify({ role: "user", content: "fine" })}\n{"role":"user","content":"`;
  const r = await addFromEndlessStdin(home, ["s"], "y".repeat(64 * 1024), head);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(
    /stdin line 2: the line is over [0-9.]+ KiB, longer than a message within limits\.max_message_bytes \(4\.0 KiB\) can be; the rest of stdin was not read/,
  );
  expect((await cli(["sessions", "--json"], { home })).stdout.trim()).toBe("[]");
});

test("JSONL past one part: a bad line after a stored part says what was stored and where to resume (exit 2)", async () => {
  const home = tempHome();
  const lines: string[] = [];
  for (let i = 1; i <= 100_050; i++)
    lines.push(JSON.stringify({ role: i % 2 ? "user" : "assistant", content: `m${i}` }));
  lines.push('{"role":"user"}');
  lines.push(JSON.stringify({ role: "user", content: "after the bad line" }));
  const r = await cli(["add", "big", "--json"], { home, stdin: `${lines.join("\n")}\n` });
  expect(r.code).toBe(2);
  const error = JSON.parse(r.stdout).error;
  expect(error).toMatchObject({ stored: 100_000, lastStoredLine: 100_000, lines: 100_051, exitCode: 2 });
  expect(r.stderr).toContain("stdin line 100051");
  expect(r.stderr).toContain("resume with: tail -n +100001");
  const sessions = JSON.parse((await cli(["sessions", "--json"], { home })).stdout);
  expect(sessions.map((s: { id: string; messages: number }) => [s.id, s.messages])).toEqual([["big", 100_000]]);
});

test("JSONL past one part: an idempotency key given to another message after a stored part is refused by line", async () => {
  const home = tempHome();
  const lines = [JSON.stringify({ role: "user", content: "first", idempotencyKey: "k1" })];
  for (let i = 2; i <= 100_010; i++) lines.push(JSON.stringify({ role: "assistant", content: `m${i}` }));
  lines.push(JSON.stringify({ role: "user", content: "another", idempotencyKey: "k1" }));
  const r = await cli(["add", "big"], { home, stdin: `${lines.join("\n")}\n` });
  expect(r.code).toBe(2);
  expect(r.stderr.trim().split("\n").at(-1)).toBe(
    'memvoy: add: stored 100000 message(s) in big (stdin lines 1-100000), then failed: stdin line 100011: idempotencyKey "k1" is also on stdin line 1, for another message; the lines after 100000 were not stored (resume with: tail -n +100001)',
  );
});

test("JSONL of up to one part is checked whole: a bad last line stores nothing", async () => {
  const home = tempHome();
  const r = await cli(["add", "s"], {
    home,
    stdin: `${JSON.stringify({ role: "user", content: "first" })}\n\n${JSON.stringify({ role: "user" })}\n`,
  });
  expect(r.code).toBe(2);
  expect(r.stderr).toContain("stdin line 3");
  expect((await cli(["sessions", "--json"], { home })).stdout.trim()).toBe("[]");
});

test("a message just over the limit names both sizes in bytes, not as the same rounded size", async () => {
  const home = smallLimitHome();
  const r = await cli(["add", "s", "--role", "user"], { home, stdin: "x".repeat(4098) });
  expect(r.code).toBe(2);
  expect(r.stderr).toContain("message: content is 4,098 bytes, over limits.max_message_bytes (4,096 bytes)");
});

test("a folder as stdin (add s < DIR) is one clear line with exit 2, nothing written", async () => {
  const home = tempHome();
  for (const args of [["s"], ["s", "--role", "user"]]) {
    const folder = openSync(tmpdir(), "r");
    const proc = Bun.spawn(["bun", join(repoRoot, "src/index.ts"), "--home", home, "add", ...args], {
      env: { PATH: process.env.PATH!, HOME: home, TZ: "UTC" },
      stdin: folder,
      stdout: "pipe",
      stderr: "pipe",
    });
    const r = await processOutput(proc);
    closeSync(folder);
    expect({ args, code: r.code, stderr: r.stderr }).toEqual({
      args,
      code: 2,
      stderr: "memvoy: add: stdin is a folder, not a file; nothing was written\n",
    });
  }
});

test("JSONL on stdin with --sender or --idempotency-key is refused, not stored without them (exit 2)", async () => {
  const home = tempHome();
  const line = `${JSON.stringify({ role: "user", content: "retried" })}\n`;
  for (const flags of [
    ["--idempotency-key", "k1"],
    ["--sender", "bob"],
  ]) {
    const r = await cli(["add", "s", ...flags], { home, stdin: line });
    expect({ flags, code: r.code, stdout: r.stdout }).toEqual({ flags, code: 2, stdout: "" });
    expect(r.stderr).toContain(`memvoy: add: ${flags[0]} needs --role (a JSONL line gives its own "sender"`);
  }
  expect((await cli(["sessions", "--json"], { home })).stdout.trim()).toBe("[]");
  const keyed = `${JSON.stringify({ role: "user", content: "retried", idempotencyKey: "k1" })}\n`;
  for (let i = 0; i < 2; i++) expect((await cli(["add", "s"], { home, stdin: keyed })).code).toBe(0);
  expect(JSON.parse((await cli(["history", "s", "--json"], { home })).stdout).messages).toHaveLength(1);
});

test("a JSON array or pretty-printed JSON on stdin says what JSONL is, nothing written (exit 2)", async () => {
  const home = tempHome();
  const message = { role: "user", content: "hi" };
  const cases: [string, string][] = [
    [
      `${JSON.stringify([message])}\n`,
      `stdin line 1: a JSON array, not one message; nothing was written (JSONL holds one {"role", "content"} object a line: jq -c '.[]' makes it)`,
    ],
    [
      `${JSON.stringify([message], null, 2)}\n`,
      "stdin line 1: not valid JSON; nothing was written (to add plain text, give --role user|assistant; JSONL holds one message object a line: jq -c '.[]' makes it)",
    ],
    [
      `${JSON.stringify(message, null, 2)}\n`,
      "stdin line 1: not valid JSON; nothing was written (JSONL holds one message object a line: jq -c . makes it)",
    ],
  ];
  for (const [stdin, said] of cases) {
    const r = await cli(["add", "s"], { home, stdin });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 2, stderr: `memvoy: ${said}\n` });
  }
  expect((await cli(["sessions", "--json"], { home })).stdout.trim()).toBe("[]");
});

test("a JSONL add that stores one message says 'added 1 message', not '1 messages'", async () => {
  const home = tempHome();
  const line = (content: string) => JSON.stringify({ role: "user", content, idempotencyKey: content });
  expect((await cli(["add", "s"], { home, stdin: line("a") })).code).toBe(0);
  const r = await cli(["add", "s"], { home, stdin: `${line("a")}\n${line("b")}\n` });
  expect(r.stdout).toBe("added 1 message to s (1 already stored under their idempotency key)\n");
});

test("add --content - reads the text from stdin, as context --input - does, instead of storing '-'", async () => {
  const home = tempHome();
  const r = await cli(["add", "s", "--role", "user", "--content", "-"], { home, stdin: "piped text\n" });
  expect(r.code).toBe(0);
  const history = JSON.parse((await cli(["history", "s", "--json"], { home })).stdout);
  expect(history.messages.map((m: { content: string }) => m.content)).toEqual(["piped text"]);
});

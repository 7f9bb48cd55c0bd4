// An object store that takes the connection and never answers (a hung proxy, a firewall dropping what follows the
// handshake): a command needing vectors ends after [vectors] answer_timeout_ms with one line naming the store and
// what to check (exit 1), hybrid search falls back to keyword hits, and commands without vectors are not held.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TCPSocketListener } from "bun";
import { cli, removeTempHomes, repoRoot, tempHome } from "../fixture/home.ts";
import { processOutput } from "../fixture/process-output.ts";

const T = 120_000;
const KEYS = { AWS_ACCESS_KEY_ID: "AKIDSILENTSTORE", AWS_SECRET_ACCESS_KEY: "silent-store-secret-0123456789" };
let listener: TCPSocketListener<undefined>;
let accepted = 0;
let home: string;
let endpoint: string;

beforeAll(async () => {
  listener = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open() {
        accepted++;
      },
      data() {
        // read and never answered
      },
    },
  });
  endpoint = `http://127.0.0.1:${listener.port}`;
  home = tempHome();
  writeFileSync(
    join(home, "config.toml"),
    ["[vectors]", 'uri = "s3://memvoy-test/silent"', `endpoint = "${endpoint}"`, "allow_http = true"]
      .concat("answer_timeout_ms = 2000", "")
      .join("\n"),
  );
  const jsonl = ["the nightly backup failed on the upload step", "lunch is at noon"]
    .map((content) => JSON.stringify({ role: "user", content }))
    .join("\n");
  const added = await cli(["add", "s"], { home, stdin: jsonl, env: KEYS });
  expect(added.code, added.stderr).toBe(0);
}, T);

afterAll(() => {
  listener?.stop(true);
  removeTempHomes();
});

/** The command, killed if it outlives `killAfterMs` (LanceDB alone waits minutes for such a store). */
async function timed(args: string[], killAfterMs = 60_000) {
  const started = performance.now();
  const proc = Bun.spawn(["bun", join(repoRoot, "src/index.ts"), "--home", home, ...args], {
    cwd: tmpdir(),
    env: { PATH: process.env.PATH!, HOME: tmpdir(), TZ: "UTC", ...KEYS },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const killer = setTimeout(() => proc.kill(9), killAfterMs);
  const out = await processOutput(proc);
  clearTimeout(killer);
  return { ...out, ms: performance.now() - started };
}

const silentLine = () =>
  `cannot open the vector store s3://memvoy-test/silent: the object store at ${endpoint} did not answer within 2 s (check [vectors] endpoint and that nothing between this host and it, a proxy or a firewall, holds the connection; [vectors] answer_timeout_ms raises the wait)`;

test(
  "semantic search ends after the bound with one line naming the store and what to check, exit 1",
  async () => {
    const before = accepted;
    const r = await timed(["search", "backup broke", "--match", "semantic"]);
    expect(accepted).toBeGreaterThan(before); // the store took the connection
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 1, stderr: `memvoy: ${silentLine()}\n` });
    // 2 s of waiting plus the process's start on a loaded machine; without the bound it ran for minutes.
    expect(r.ms).toBeLessThan(30_000);
    expect(r.stdout + r.stderr).not.toContain(KEYS.AWS_SECRET_ACCESS_KEY);
  },
  T,
);

test(
  "hybrid search gives the keyword hits with the same note, as for a store that refuses connections",
  async () => {
    const r = await timed(["search", "nightly backup", "--match", "hybrid"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("nightly backup failed");
    expect(r.stderr).toBe(`memvoy: semantic side unavailable (${silentLine()}): keyword results only\n`);
    expect(r.ms).toBeLessThan(30_000);
  },
  T,
);

test(
  "commands that need no vectors are not held: keyword search, add, context",
  async () => {
    for (const args of [
      ["search", "nightly backup"],
      ["add", "s", "--role", "assistant", "--content", "rerun the upload step"],
      ["context", "s"],
    ]) {
      const r = await timed(args);
      expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: "" });
      expect(r.ms).toBeLessThan(30_000);
    }
  },
  T,
);

test(
  "doctor names the store it cannot read, exit 1 (it said all good)",
  async () => {
    const r = await timed(["doctor"]);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain("the vectors at s3://memvoy-test/silent cannot be read:");
    expect(r.stdout + r.stderr).toContain("did not answer within 2 s");
    expect(r.stdout + r.stderr).not.toContain(KEYS.AWS_SECRET_ACCESS_KEY);
    expect(r.ms).toBeLessThan(30_000);
  },
  T,
);

// daemon.log: one line per event, rotated by size keeping 3 old files, secrets never written.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { DaemonLog, KEEP_ROTATED, redact } from "../../src/daemon/log.ts";
import { cleanup, tempHome } from "../fixture/daemon-process.ts";

afterAll(cleanup);

test("rotates by size and keeps three old files", () => {
  const path = join(tempHome(), "daemon.log");
  const log = new DaemonLog({ path, maxBytes: 4096, env: {} });
  for (let i = 0; i < 400; i++) log.info("job.done", { job: "summaries", n: i, detail: "x".repeat(60) });
  log.close();
  for (let i = 1; i <= KEEP_ROTATED; i++) {
    expect(existsSync(`${path}.${i}`)).toBe(true);
    expect(statSync(`${path}.${i}`).size).toBeLessThanOrEqual(4096);
  }
  expect(existsSync(`${path}.${KEEP_ROTATED + 1}`)).toBe(false);
  expect(statSync(path).size).toBeLessThanOrEqual(4096);
  const last = readFileSync(path, "utf8").trimEnd().split("\n").at(-1)!;
  expect(last).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z INFO {2}job\.done job=summaries n=399 detail=x+$/);
  expect(statSync(path).mode & 0o777).toBe(0o600);
});

test("a log removed or moved aside while the daemon runs is made again at its path for the next lines", () => {
  const home = tempHome();
  const path = join(home, "daemon.log");
  const log = new DaemonLog({ path, maxBytes: 1 << 20, env: {} });
  log.info("daemon.start", { n: 1 });
  rmSync(path);
  log.info("job.done", { n: 2 });
  expect(readFileSync(path, "utf8")).toMatch(/^\S+ INFO {2}job\.done n=2\n$/);
  expect(statSync(path).mode & 0o777).toBe(0o600);
  // logrotate without copytruncate: the old file moves aside, the next line starts a new one.
  renameSync(path, `${path}.old`);
  log.info("job.done", { n: 3 });
  expect(readFileSync(`${path}.old`, "utf8")).toContain("n=2");
  expect(readFileSync(path, "utf8")).toMatch(/^\S+ INFO {2}job\.done n=3\n$/);
  // A home replaced under the daemon is never written into.
  rmSync(home, { recursive: true });
  mkdirSync(home);
  log.info("job.done", { n: 4 });
  log.close();
  expect(existsSync(path)).toBe(false);
});

test("a log emptied in place (logrotate's copytruncate) is rotated at its size again, not early", () => {
  const path = join(tempHome(), "daemon.log");
  const log = new DaemonLog({ path, maxBytes: 4096, env: {} });
  const line = () => log.info("job.done", { job: "summaries", detail: "x".repeat(60) });
  for (let i = 0; i < 25; i++) line();
  expect(existsSync(`${path}.1`)).toBe(false);
  truncateSync(path, 0);
  for (let i = 0; i < 20; i++) line();
  log.close();
  // Before, the size counted before the truncation made it rotate a file a fraction of its limit.
  expect(existsSync(`${path}.1`)).toBe(false);
  expect(readFileSync(path, "utf8").trimEnd().split("\n")).toHaveLength(20);
});

test("API keys from the environment and key-shaped strings never reach the log", () => {
  const path = join(tempHome(), "daemon.log");
  const key = "test-key-0123456789abcdef";
  const log = new DaemonLog({ path, maxBytes: 1 << 20, env: { ANTHROPIC_API_KEY: key }, verbose: false });
  log.error("job.fail", { error: `401 invalid x-api-key: ${key}` });
  log.error("job.fail", { error: "bad key sk-ant-api03-abcdefghijklmnop and Bearer abcdefghijklmnop" });
  log.close();
  const text = readFileSync(path, "utf8");
  expect(text).not.toContain(key);
  expect(text).not.toContain("sk-ant-api03");
  expect(text).not.toContain("Bearer abcdefghijklmnop");
  expect(text).toContain("[REDACTED:");
  expect(redact("api_key=hunter2hunter2", [])).toBe("api_key=[REDACTED:secret-value]");
});

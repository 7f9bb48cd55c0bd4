// The compiled binary as a daemon: its child is the binary itself, drains the queue, and the daemon never maps LanceDB.
import { afterAll, setDefaultTimeout, expect, test } from "bun:test";
import { chmodSync, copyFileSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openMemory } from "../../src/app/open-memory.ts";
import { buildBinaryOnce, makeTempDir, removeTempDirs, spawnBinaryDaemon } from "../fixture/binary.ts";
import {
  cleanup,
  logText,
  mappedFiles,
  processAlive,
  tempHome,
  waitFor,
  workerPids,
} from "../fixture/daemon-process.ts";

// Building the binary (once per run) and real processes.
setDefaultTimeout(120_000);

afterAll(() => {
  cleanup();
  removeTempDirs();
});

test("compiled binary: the embeddings child is the binary itself; the daemon never maps LanceDB", async () => {
  const bin = await buildBinaryOnce();
  const home = tempHome();
  const api = openMemory({ home, env: {}, drain: "off" });
  api.add("s", [
    { role: "user", content: "where do the deploy keys live" },
    { role: "assistant", content: "in the vault under ops/deploy" },
  ]);
  api.close();
  const { proc: d } = spawnBinaryDaemon(bin, home);
  try {
    const backlog = () => {
      const a = openMemory({ home, env: {}, drain: "off" });
      try {
        return a.embeddingBacklog();
      } finally {
        a.close();
      }
    };
    await waitFor(() => backlog().queued === 0, 30_000, "the queue to drain");
    const [child] = workerPids(home, "embeddings");
    expect(child).toBeDefined();
    if (processAlive(child!)) {
      const argv = readFileSync(`/proc/${child}/cmdline`, "utf8").split("\0");
      expect(argv.slice(0, 4)).toEqual([bin, "daemon", "work", "embeddings"]);
    }
    expect(mappedFiles(d.pid)).not.toMatch(/lancedb/i);
    d.kill("SIGTERM");
    expect(await d.exited).toBe(0);
    expect(logText(home)).toContain("worker.exit job=embeddings");
  } finally {
    if (d.exitCode === null) d.kill(9);
  }
});

test("compiled binary started from a folder removed since: its children still start (they run in the home)", async () => {
  const bin = await buildBinaryOnce();
  const home = tempHome();
  writeFileSync(join(home, "config.toml"), `[daemon]\nmaintenance_cron = "* * * * * *"\n`);
  const { proc: d, cwd } = spawnBinaryDaemon(bin, home);
  try {
    await waitFor(() => logText(home).includes("daemon.start"), 30_000, "the daemon to start");
    rmSync(cwd, { recursive: true, force: true });
    const since = logText(home).length;
    await waitFor(
      () => /job\.(done|fail) job=maintenance /.test(logText(home).slice(since)),
      30_000,
      "a maintenance run",
    );
    const log = logText(home).slice(since);
    expect(log).not.toContain("working directory was deleted");
    expect(log).toMatch(/job\.done job=maintenance /);
    d.kill("SIGTERM");
    expect(await d.exited).toBe(0);
  } finally {
    if (d.exitCode === null) d.kill(9);
  }
});

test("compiled binary replaced at its path while the daemon runs (an upgrade): its children are still the daemon's own program", async () => {
  const bin = await buildBinaryOnce();
  const copy = join(makeTempDir("memvoy-bin-"), "memvoy");
  copyFileSync(bin, copy);
  chmodSync(copy, 0o755);
  const home = tempHome();
  writeFileSync(join(home, "config.toml"), `[daemon]\nmaintenance_cron = "* * * * * *"\n`);
  const { proc: d } = spawnBinaryDaemon(copy, home);
  try {
    await waitFor(() => logText(home).includes("daemon.start"), 30_000, "the daemon to start");
    // install.sh replaces the file through a rename: the path now names another program.
    writeFileSync(`${copy}.new`, '#!/bin/sh\necho "the replaced program ran" >&2\nexit 3\n', { mode: 0o755 });
    renameSync(`${copy}.new`, copy);
    const since = logText(home).length;
    await waitFor(
      () => /job\.(done|fail) job=maintenance /.test(logText(home).slice(since)),
      30_000,
      "a maintenance run",
    );
    const log = logText(home).slice(since);
    expect(log).not.toContain("the replaced program ran");
    expect(log).toMatch(/job\.done job=maintenance /);
    d.kill("SIGTERM");
    expect(await d.exited).toBe(0);
  } finally {
    if (d.exitCode === null) d.kill(9);
  }
});

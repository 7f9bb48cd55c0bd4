// Two imports of the same source at once (the daemon's capture and a manual run, or two hosts) that both find a
// rewind: each removes what the other has not yet, and a message the other removed first is no failure.
import { afterAll, expect, test } from "bun:test";
import { appendFileSync, readdirSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { cli, removeTempHomes, repoRoot, tempHome, waitFor } from "../fixture/home.ts";
import { GEM_ID, writeGeminiHome } from "../fixture/import/gemini.ts";
import { holdWriterLock } from "../fixture/writer-lock-holder.ts";
import { processOutput } from "../fixture/process-output.ts";

afterAll(removeTempHomes);

/** Whether process `pid` has the file `path` open (Linux names a descriptor's file in /proc/PID/fd). */
function holdsOpen(pid: number, path: string): boolean {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === path;
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

test.skipIf(process.platform !== "linux")(
  "two imports removing the same rewound messages at once both succeed, each message removed once",
  async () => {
    const { home: src, chatFile } = writeGeminiHome(tempHome("gem-src-"));
    const home = tempHome();
    const env = { GEMINI_CLI_HOME: src };
    expect((await cli(["import", "gemini"], { home, env })).code).toBe(0);
    appendFileSync(chatFile, `${JSON.stringify({ $rewindTo: "m6" })}\n`);
    // Both read the chat and wait on the writer lock for their first removal, then go at once.
    const holder = await holdWriterLock(home, 60_000, { transaction: false });
    const runs = [0, 1].map(() =>
      Bun.spawn(["bun", join(repoRoot, "src/index.ts"), "--home", home, "import", "gemini", "--json"], {
        cwd: tmpdir(),
        env: { PATH: process.env.PATH!, HOME: tmpdir(), TZ: "UTC", ...env },
        stdout: "pipe",
        stderr: "pipe",
      }),
    );
    const lock = join(home, ".store", "write.lock");
    await waitFor(() => runs.every((p) => holdsOpen(p.pid, lock)), 30_000, "both imports waiting for the lock");
    await holder.release();
    const out = await Promise.all(runs.map(processOutput));
    for (const r of out) expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
    const reports = out.map((r) => JSON.parse(r.stdout).sources[0]);
    expect(reports.map((r) => r.failed)).toEqual([[], []]);
    expect(reports.map((r) => r.notRemoved)).toEqual([0, 0]);
    expect(reports[0].messages.removed + reports[1].messages.removed).toBe(2);
    const history = await cli(["history", `gem-${GEM_ID}`, "--all", "--json"], { home });
    expect(JSON.parse(history.stdout).messages.map((m: { content: string }) => m.content)).toEqual([
      "list the open ports",
      "Ports 22 and 8080 are open.",
    ]);
  },
  120_000,
);

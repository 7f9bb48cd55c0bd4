// An import stopped by a signal (Ctrl-C, SIGTERM, SIGHUP) ends after the write under way: exit 128 + the signal's
// number, one line saying so, no temp file of a session's text left behind, and a new run adds the rest.
import { afterAll, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, removeTempHomes, repoRoot, tempHome, waitFor } from "../fixture/home.ts";
import { processOutput } from "../fixture/process-output.ts";

afterAll(removeTempHomes);

const SESSIONS = 20;
const PER_SESSION = 6000;

function exportFile(dir: string): string {
  const lines: string[] = [];
  for (let s = 0; s < SESSIONS; s++) {
    lines.push(JSON.stringify({ type: "session", id: `imp${s}` }));
    for (let i = 0; i < PER_SESSION; i++)
      lines.push(
        JSON.stringify({
          type: "message",
          id: `m${s}x${i}`,
          session: `imp${s}`,
          role: i % 2 ? "assistant" : "user",
          content: `message ${i} about the deploy and the database`,
          sendAt: `2026-01-01T00:${String(Math.floor(i / 600) % 60).padStart(2, "0")}:${String(Math.floor(i / 10) % 60).padStart(2, "0")}.${String(i).padStart(6, "0")}Z`,
        }),
      );
  }
  const file = join(dir, "export.jsonl");
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

test("SIGTERM during an import stops it after the write under way: exit 143, a clean home, and a new run adds the rest", async () => {
  const home = tempHome();
  const file = exportFile(tempHome("memvoy-export-"));
  const p = Bun.spawn(["bun", join(repoRoot, "src/index.ts"), "--home", home, "import", "jsonl", file], {
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, HOME: home },
  });
  // Once the first session is written, well before the last.
  await waitFor(() => existsSync(join(home, "sessions", "imp0", "history.json")), 60_000, "the first session");
  p.kill("SIGTERM");
  const r = await processOutput(p);
  expect({ code: r.code, stderr: r.stderr }).toEqual({
    code: 143,
    stderr:
      "memvoy: import stopped by SIGTERM after the write under way: what it stored stays, and running it again adds the rest\n",
  });
  const doctor = await cli(["doctor"], { home });
  expect({ code: doctor.code, stdout: doctor.stdout }).toMatchObject({ code: 0 });
  const again = await cli(["import", "jsonl", file, "--json"], { home });
  expect(again.code, again.stderr).toBe(0);
  const [report] = JSON.parse(again.stdout).sources;
  expect(report.messages.added + report.messages.existing).toBe(SESSIONS * PER_SESSION);
  expect(report.messages.existing).toBeGreaterThan(0);
}, 180_000);

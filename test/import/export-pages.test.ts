// A large session is exported in pages (EXPORT_PAGE messages read at a time), never held whole: the output is
// the same bytes as one piece (one session line, every message in order), and a round trip gives them back. A
// stopped export leaves no partial copy.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EXPORT_PAGE } from "../../src/memory/imports/export-lines.ts";
import { cli, openTemp, removeTempHomes, repoRoot, tempHome, waitFor } from "../fixture/home.ts";

afterAll(removeTempHomes);

const COUNT = 2 * EXPORT_PAGE + 7;

test("a session past one page is read in pages, exported as one session, and round-trips byte for byte", async () => {
  const { home, api } = openTemp();
  try {
    const messages = Array.from({ length: COUNT }, (_, i) => ({
      role: (i % 2 === 0 ? "user" : "assistant") as "user" | "assistant",
      content: `message ${i}`,
      sendAt: 1_767_225_600_000_000_000n + BigInt(i) * 1_000_000_000n,
    }));
    api.add("big", messages);
    api.add("small", [{ role: "user", content: "one", sendAt: 1_767_225_600_000_000_000n }]);
    const pages = [...api.imports.exportSessions({ sessions: ["big"] })];
    expect(pages.map((p) => p.messages.length)).toEqual([EXPORT_PAGE, EXPORT_PAGE, 7]);
    expect(pages.map((p) => p.continues === true)).toEqual([false, true, true]);
    expect(pages[0]!.total).toBe(COUNT);
  } finally {
    api.close();
  }
  const first = await cli(["export", "--all"], { home });
  const lines = first.stdout.trimEnd().split("\n");
  expect(lines.length).toBe(COUNT + 3);
  expect(lines.filter((l) => l.startsWith('{"type":"session"')).length).toBe(2);
  const contents = lines.filter((l) => l.includes('"session":"big"')).map((l) => JSON.parse(l).content);
  expect(contents).toEqual(Array.from({ length: COUNT }, (_, i) => `message ${i}`));
  const md = await cli(["export", "big", "--format", "md"], { home });
  expect(md.stdout.match(/^# /gm)!.length).toBe(1);
  expect(md.stdout).toContain(`- messages: ${COUNT}\n`);
  expect(md.stdout.match(/^## /gm)!.length).toBe(COUNT);

  const empty = tempHome();
  expect((await cli(["import", "jsonl", "-"], { home: empty, stdin: first.stdout })).code).toBe(0);
  expect((await cli(["export", "--all"], { home: empty })).stdout).toBe(first.stdout);
});

test("export --output stopped by SIGTERM or Ctrl-C leaves no temp file beside the output", async () => {
  const { home, api } = openTemp({ drain: "off" });
  try {
    for (let s = 0; s < 40; s++)
      api.add(
        `s${s}`,
        Array.from({ length: 2500 }, (_, i) => ({
          role: (i % 2 === 0 ? "user" : "assistant") as "user" | "assistant",
          content: `session ${s} message ${i} ${"x".repeat(200)}`,
          sendAt: 1_767_225_600_000_000_000n + BigInt(i) * 1_000_000_000n,
        })),
      );
  } finally {
    api.close();
  }
  for (const [signal, code] of [
    ["SIGTERM", 143],
    ["SIGINT", 130],
  ] as const) {
    const dir = mkdtempSync(join(tmpdir(), "memvoy-export-"));
    const proc = Bun.spawn(
      ["bun", join(repoRoot, "src/index.ts"), "--home", home, "export", "--all", "--output", join(dir, "out.jsonl")],
      { cwd: tmpdir(), env: { PATH: process.env.PATH!, HOME: tmpdir() }, stdout: "pipe", stderr: "pipe" },
    );
    // Once the temp file holds a page, the export is under way.
    await waitFor(() => readdirSync(dir).some((n) => n.endsWith(".tmp") && statSync(join(dir, n)).size > 0), 30_000);
    proc.kill(signal);
    expect(await proc.exited).toBe(code);
    expect(readdirSync(dir)).toEqual([]);
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);

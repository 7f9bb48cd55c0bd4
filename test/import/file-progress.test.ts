// Import progress while one large file is read: the messages so far and the share of the file read, reported after
// each write (and, for another tool's file, as its bytes are read), so a single 1 GB file is not a silent wait.
import { afterAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { importJsonlFiles } from "../../src/import/import-jsonl.ts";
import type { ImportProgress } from "../../src/import/import-report.ts";
import { openTemp, removeTempHomes, tempHome } from "../fixture/home.ts";
import { importWith } from "./support.ts";

afterAll(removeTempHomes);

test("one export file of several sessions reports progress within the file, its share read growing to 1", async () => {
  const lines: string[] = [];
  for (let s = 0; s < 5; s++) {
    lines.push(JSON.stringify({ type: "session", id: `s${s}` }));
    for (let i = 0; i < 20; i++)
      lines.push(
        JSON.stringify({
          type: "message",
          id: `m${s}x${String(i).padStart(3, "0")}`,
          session: `s${s}`,
          role: i % 2 === 0 ? "user" : "assistant",
          content: `message ${i} of session ${s}`,
          sendAt: new Date(Date.UTC(2026, 0, 1, 0, s, i)).toISOString(),
        }),
      );
  }
  const file = join(tempHome(), "export.jsonl");
  writeFileSync(file, `${lines.join("\n")}\n`);
  const { api } = openTemp();
  try {
    const seen: ImportProgress[] = [];
    const r = await importJsonlFiles(api, [file], { onProgress: (p) => seen.push({ ...p }) });
    expect(r.messages.added).toBe(100);
    const within = seen.filter((p) => p.filesDone === 0 && !p.indexing);
    expect(within.map((p) => p.messages)).toEqual([20, 40, 60, 80, 100]);
    const shares = within.map((p) => p.fileShare!);
    expect(shares.every((x, i) => x > 0 && x <= 1 && (i === 0 || x > shares[i - 1]!))).toBe(true);
    expect(shares.at(-1)).toBe(1);
    expect(seen.filter((p) => p.filesDone === 1).length).toBeGreaterThan(0);
  } finally {
    api.close();
  }
});

test("one large rollout reports its bytes as it is read, then its messages as they are stored, the share only growing", async () => {
  const id = "0199a0b0-1111-7222-8333-444455556666";
  const pad = "lorem ipsum dolor sit amet ".repeat(24);
  const lines = [
    JSON.stringify({
      timestamp: "2026-01-01T00:00:00.000Z",
      type: "session_meta",
      payload: { id, cwd: "/home/dev/big" },
    }),
  ];
  for (let i = 0; i < 12_000; i++) {
    const timestamp = new Date(Date.UTC(2026, 0, 1) + (i + 1) * 1000).toISOString();
    const type = i % 2 === 0 ? "user_message" : "agent_message";
    lines.push(JSON.stringify({ timestamp, type: "event_msg", payload: { type, message: `message ${i} ${pad}` } }));
  }
  const dir = tempHome("codex-big-");
  const file = join(dir, `rollout-2026-01-01T00-00-00-${id}.jsonl`);
  writeFileSync(file, `${lines.join("\n")}\n`);
  const size = Bun.file(file).size;
  expect(size).toBeGreaterThan(8 * 1024 * 1024); // more than two read chunks
  const { api } = openTemp();
  try {
    const seen: ImportProgress[] = [];
    const r = await importWith(api, "codex", [dir], { onProgress: (p) => seen.push({ ...p }) });
    expect(r.messages.added).toBe(12_000);
    const within = seen.filter((p) => p.filesDone === 0 && !p.indexing);
    const reading = within.filter((p) => p.fileBytes);
    expect(reading.length).toBeGreaterThanOrEqual(3);
    expect(reading.every((p) => p.fileBytes!.total === size && p.messages === 0)).toBe(true);
    expect(reading.at(-1)!.fileBytes!.done).toBe(size);
    expect(within.filter((p) => !p.fileBytes).map((p) => p.messages)).toEqual([5000, 10_000, 12_000]);
    const shares = within.map((p) => p.fileShare!);
    expect(shares.every((x, i) => x >= 0 && x <= 1 && (i === 0 || x >= shares[i - 1]!))).toBe(true);
    expect(shares.at(-1)).toBe(1);
  } finally {
    api.close();
  }
});

// Import progress while one large file is read: the messages so far and the share of the file read, reported after
// each write, so a single 1 GB export is not a silent wait until its end.
import { afterAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { importJsonlFiles } from "../../src/import/import-jsonl.ts";
import type { ImportProgress } from "../../src/import/import-report.ts";
import { openTemp, removeTempHomes, tempHome } from "../fixture/home.ts";

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

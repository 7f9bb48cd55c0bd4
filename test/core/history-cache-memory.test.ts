// The parsed history.json cache stays within its memory bound when a process reads many sessions (doctor, the first
// listing of a copied home, the daemon): the bound counts the parsed records, not only the file's bytes.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { forgetHistoryCache, readHistory, serializeHistory } from "../../src/storage/history/history-file.ts";
import { removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

const retained = () => {
  Bun.gc(true);
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
};

test("reading 30 MB of history.json files keeps at most about 64 MB of parsed files in memory", () => {
  const dir = tempHome();
  const text = "a message of an ordinary length, as agents write them, about the deploy and its config ".repeat(3);
  const files: string[] = [];
  for (let s = 0; s < 24; s++) {
    const records = Array.from({ length: 4000 }, (_, i) => ({
      id: `01M${String(s).padStart(3, "0")}${String(i).padStart(20, "0")}`,
      role: (i % 2 === 0 ? "user" : "assistant") as "user" | "assistant",
      content: `${text}${s}-${i}`,
      sendAt: 1764476000000000000n + BigInt(s * 10_000 + i) * 1_000_000n,
    }));
    mkdirSync(join(dir, `s${s}`));
    const file = join(dir, `s${s}`, "history.json");
    writeFileSync(file, serializeHistory(records));
    files.push(file);
  }
  forgetHistoryCache();
  const before = retained();
  for (const file of files) expect(readHistory(file).records).toHaveLength(4000);
  const held = retained() - before;
  forgetHistoryCache();
  // 24 files of 1.2 MB: kept whole, their parsed records held about 160 MB.
  expect(held).toBeLessThan(100 * 1024 * 1024);
}, 60_000);

// Agenvoy writes history.json in place (Go's os.WriteFile: truncate, then write): memvoy meeting the file half
// written (cut JSON, or no text yet) reads it again once the writer is done, instead of calling it corrupt (exit 2,
// "run memvoy doctor --repair"), reading the archive without the writer's new turn, or taking it for an emptied
// list. Checked with a second process that rewrites the file in place slowly while memvoy adds and reads.
import { afterAll, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { openTemp, removeTempHomes } from "../fixture/home.ts";

afterAll(removeTempHomes);

const writer = join(import.meta.dir, "../fixture/agenvoy-writer-main.ts");

/**
 * Agenvoy's turn `text`, written in place by a second process: part of the file (none when `blank`), a pause, the
 * rest. Resolves once the file is cut, with the process's exit.
 */
async function slowTurn(file: string, text: string, blank: boolean): Promise<{ exited: Promise<number> }> {
  const mark = `${file}.cut`;
  const proc = Bun.spawn(["bun", writer, file, "turn", text], {
    env: {
      ...process.env,
      AGENVOY_IN_PLACE_PAUSE_MS: "400",
      AGENVOY_IN_PLACE_MARK: mark,
      AGENVOY_IN_PLACE_BLANK: blank ? "1" : "0",
    },
  });
  // Polled often: memvoy must meet the file within the writer's pause.
  const deadline = Date.now() + 30_000;
  while (!existsSync(mark) && proc.exitCode === null && Date.now() < deadline) await Bun.sleep(2);
  rmSync(mark, { force: true });
  return { exited: proc.exited };
}

test("memvoy adds and reads while Agenvoy rewrites history.json in place: no corrupt file, nothing lost or doubled", async () => {
  const { home, api } = openTemp({ drain: "off" });
  const file = join(home, "sessions", "s", "history.json");
  try {
    api.add("s", [
      { role: "user", content: "q0" },
      { role: "assistant", content: "a0" },
    ]);
    const expected = ["q0", "a0"];
    const reads = ["add", "add", "history", "context", "search"] as const;
    for (const [i, read] of reads.entries()) {
      const turn = `agenvoy turn ${i}`;
      const writing = await slowTurn(file, turn, i === 1);
      expected.push(turn);
      if (read === "add") {
        api.add("s", [{ role: "assistant", content: `memvoy ${i}` }]);
        expected.push(`memvoy ${i}`);
      } else if (read === "history") expect(api.history("s", { all: true }).map((m) => m.content)).toEqual(expected);
      else if (read === "context")
        expect((await api.context("s")).messages.map((m) => m.content)).toEqual(expect.arrayContaining([turn]));
      else {
        const hits = (await api.search({ query: "agenvoy", session: "s", match: "keyword" })).hits;
        expect(hits.map((h) => h.message.content)).toContain(turn);
      }
      expect(await writing.exited).toBe(0);
    }
    expect(api.history("s", { all: true }).map((m) => m.content)).toEqual(expected);
    expect((JSON.parse(readFileSync(file, "utf8")) as { content: string }[]).map((r) => r.content)).toEqual(expected);
    expect(api.doctor().ok).toBe(true);
  } finally {
    api.close();
  }
}, 120_000);

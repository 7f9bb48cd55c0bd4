// history of a large session is read in pages (HISTORY_PAGE messages at a time), never held whole: the pages
// hold exactly the messages one read gives, and the CLI prints the same bytes as one document.
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { afterAll, expect, test } from "bun:test";
import { messageJson } from "../../src/app/api/json-shapes.ts";
import { HISTORY_PAGE, historyPages } from "../../src/memory/history-pages.ts";
import { listSessionMessages } from "../../src/storage/sqlite/messages-repo.ts";
import type { Role, StoredMessage } from "../../src/shared/message.ts";
import { resolveFilter } from "../../src/shared/time-filter.ts";
import type { MessageRange } from "../../src/storage/ports/message-rows.ts";
import { cli, openTemp, removeTempHomes } from "../fixture/home.ts";

afterAll(removeTempHomes);

const T0 = 1_767_225_600_000_000_000n;
const SECOND = 1_000_000_000n;

async function collect(pages: AsyncIterable<StoredMessage[]>): Promise<StoredMessage[]> {
  const out: StoredMessage[] = [];
  for await (const page of pages) out.push(...page);
  return out;
}

test("pages of any size hold what one read gives: every message, the newest N, filters, the window", async () => {
  const { home, api } = openTemp({ env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" } });
  const db = new Database(join(home, ".store", "history.db"), { readonly: true, safeIntegers: true });
  try {
    api.add(
      "s",
      Array.from({ length: 60 }, (_, i) => ({
        role: (i % 3 === 0 ? "assistant" : "user") as "user" | "assistant",
        content: `message ${i} ${"x".repeat(300)}`,
        sendAt: T0 + BigInt(i) * SECOND,
      })),
    );
    api.add("other", [{ role: "user", content: "elsewhere", sendAt: T0 }]);
    const window = api.history("s").length;
    expect(window).toBeLessThan(60);
    const cases: { all?: boolean; last?: number; role?: Role; since?: string; until?: string }[] = [
      {},
      { all: true },
      { last: 1 },
      { last: 7 },
      { last: 59 },
      { last: 60 },
      { last: 500 },
      { role: "assistant" },
      { role: "assistant", last: 5 },
      { since: "2026-01-01T00:00:10Z", until: "2026-01-01T00:00:40Z" },
      { since: "2030-01-01" },
    ];
    const list = (range: MessageRange) => listSessionMessages(db, "s", range);
    for (const o of cases) {
      const whole = api.history("s", o);
      expect(await collect(await api.historyPages("s", o))).toEqual(whole);
      const { all, last, role, since, until } = o;
      const filter = resolveFilter({ role, since, until }, T0);
      for (const page of [1, 2, 7, 59, 60, 61]) {
        let largest = 0;
        const got: StoredMessage[] = [];
        for await (const p of historyPages(list, { all, last, filter, window }, page)) {
          largest = Math.max(largest, p.length);
          got.push(...p);
        }
        expect(got).toEqual(whole);
        if (Object.keys(o).length > 0) expect(largest).toBeLessThanOrEqual(page);
      }
    }
    // Messages added while the pages are read are not shown: the newest message at the start bounds the read.
    const pages = historyPages(list, { all: true, window }, 10);
    const first = await pages.next();
    api.add("s", [{ role: "user", content: "later", sendAt: T0 + 100n * SECOND }]);
    const rest = await collect({ [Symbol.asyncIterator]: () => pages });
    expect([...(first.value as StoredMessage[]), ...rest].map((m) => m.content)).toEqual(
      Array.from({ length: 60 }, (_, i) => `message ${i} ${"x".repeat(300)}`),
    );
  } finally {
    db.close();
    api.close();
  }
});

test("history --all of a session past one page prints the same document and lines as one read", async () => {
  const COUNT = 2 * HISTORY_PAGE + 7;
  const { home, api } = openTemp({ env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "65536" } });
  let whole: StoredMessage[];
  try {
    api.add(
      "big",
      Array.from({ length: COUNT }, (_, i) => ({
        role: (i % 2 === 0 ? "user" : "assistant") as "user" | "assistant",
        content: i === 5 ? "emoji 😀 \u202Eرتل\u202C \x1b[31mred" : `message ${i}`,
        sendAt: T0 + BigInt(i) * SECOND,
      })),
    );
    whole = api.history("big", { all: true });
  } finally {
    api.close();
  }
  const json = await cli(["history", "big", "--all", "--json"], { home });
  expect(json.code).toBe(0);
  expect(json.stdout).toBe(`${JSON.stringify({ session: "big", messages: whole.map(messageJson) }, null, 2)}\n`);
  const text = await cli(["history", "big", "--all"], { home });
  const lines = text.stdout.trimEnd().split("\n");
  expect(lines).toHaveLength(COUNT + 1);
  expect(lines.filter((l) => l.includes("archive above · history.json below"))).toHaveLength(1);
  expect(text.stdout).not.toContain("\x1b");
  const last = await cli(["history", "big", "--last", String(HISTORY_PAGE + 3), "--json"], { home });
  expect(JSON.parse(last.stdout).messages).toEqual(whole.slice(-(HISTORY_PAGE + 3)).map(messageJson));
  const none = await cli(["history", "big", "--since", "2030-01-01", "--json"], { home });
  expect(none.stdout).toBe(`${JSON.stringify({ session: "big", messages: [] }, null, 2)}\n`);
  expect((await cli(["history", "big", "--since", "2030-01-01"], { home })).stdout).toBe("(no messages)\n");
});

// chat_history search pages: every page of one query comes from one ranking, so pages taken with offset (a cut
// answer's next_offset, or a caller paging by hand) neither repeat nor skip a hit of the whole list.
import { afterAll, describe, expect, test } from "bun:test";
import { openTemp, removeTempHomes } from "../fixture/home.ts";
import { openMemoryApi } from "../../src/app/api/local-memory-api.ts";
import { TOOLS } from "../../src/mcp/tools.ts";

afterAll(removeTempHomes);

const WORDS = (
  "deploy server rollback incident payment refund cluster memory database migration timeout retry queue " +
  "worker cache invoice customer latency alert dashboard release branch merge review token login session " +
  "backup restore disk network proxy certificate schedule meeting budget report the a to of and in we is it for " +
  "on was with"
).split(" ");
// Queries whose best ten, in this corpus, depend on how many hits a search is asked for.
const QUERIES = ["server incident", "cache invoice", "on customer", "deploy server", "payment refund"];

/** Messages of words drawn from WORDS by a seeded generator, the first words most often: many partial matches. */
function corpus(n: number): string[] {
  let seed = 3;
  const next = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const word = () => WORDS[Math.floor(next() ** 2 * WORDS.length)]!;
  return Array.from({ length: n }, () => Array.from({ length: 4 + Math.floor(next() * 16) }, word).join(" "));
}

type Row = { id: string };
type Page = { rows: Row[]; truncated?: boolean; next_offset?: number };

describe("chat_history search pages", () => {
  test("a cut answer's pages, followed by next_offset, are exactly the rows of one uncut answer", async () => {
    const { home, api: seeding } = openTemp({ drain: "off" });
    const texts = corpus(1500);
    for (let i = 0; i < texts.length; i += 100)
      seeding.add(
        i % 200 === 0 ? "a" : "b",
        texts
          .slice(i, i + 100)
          .map((content, j) => ({ role: j % 2 ? ("assistant" as const) : ("user" as const), content })),
      );
    seeding.close();
    const api = openMemoryApi({ home, env: {} });
    const tool = TOOLS.find((t) => t.name === "chat_history")!;
    const search = async (args: Record<string, unknown>) =>
      (await tool.run(api, { mode: "search", match: "keyword", ...args })).value as unknown as Page;
    try {
      for (const query of QUERIES) {
        const whole = await search({ query, limit: 20, max_chars: 200_000 });
        expect(whole.truncated).toBeUndefined();
        const paged: string[] = [];
        for (let offset: number | undefined = 0, n = 0; offset !== undefined && offset < 20; n++) {
          expect(n).toBeLessThan(40);
          const page = await search({ query, limit: 20, max_chars: 600, offset });
          paged.push(...page.rows.map((r) => r.id));
          offset = page.next_offset;
        }
        // The last page may run past the twentieth row: a continuation gives up to `limit` rows from its offset.
        expect(paged.slice(0, 20)).toEqual(whole.rows.map((r) => r.id));
        expect(new Set(paged).size).toBe(paged.length);
        // Paging by hand, ten at a time: the pages walk one list, the one a search of 25 begins.
        const first = await search({ query, limit: 25, max_chars: 200_000 });
        const byTen: string[] = [];
        for (let offset = 0; offset < 40; offset += 10)
          byTen.push(...(await search({ query, limit: 10, offset, max_chars: 200_000 })).rows.map((r) => r.id));
        expect(byTen.slice(0, 25)).toEqual(first.rows.map((r) => r.id));
        expect(new Set(byTen).size).toBe(byTen.length);
      }
    } finally {
      await api.close();
    }
  }, 120_000);
});

test("a long query (a pasted log) is not echoed whole: the answer's room goes to its rows", async () => {
  const { home, api: seeding } = openTemp({ drain: "off" });
  seeding.add(
    "dbg",
    Array.from({ length: 12 }, (_, i) => ({
      role: i % 2 ? ("assistant" as const) : ("user" as const),
      content: `cannot read properties of undefined (reading map) in the list component, attempt ${i}`,
    })),
  );
  seeding.close();
  const api = openMemoryApi({ home, env: {} });
  const tool = TOOLS.find((t) => t.name === "chat_history")!;
  try {
    const query = "cannot read properties of undefined reading map in the list component ".repeat(100);
    const r = (await tool.run(api, { mode: "search", match: "keyword", query })).value as Page & { query: string };
    expect(r.rows).toHaveLength(10);
    expect(r.truncated).toBeUndefined();
    expect(r.query.length).toBeLessThanOrEqual(200);
    expect(query.replace(/\s+/g, " ").startsWith(r.query.slice(0, -1))).toBe(true);
    // A short query is named as it was given.
    const short = (await tool.run(api, { mode: "search", match: "keyword", query: "list  component" })).value;
    expect(short.query).toBe("list  component");
  } finally {
    await api.close();
  }
});

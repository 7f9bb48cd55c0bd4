// A word with an apostrophe before letters beyond ASCII (French elision: l'école, c'était) is found as typed, archived or recent.
import { afterAll, expect, test } from "bun:test";
import { NS_PER_DAY } from "../../src/shared/time.ts";
import { openTemp, removeTempHomes } from "../fixture/home.ts";

afterAll(removeTempHomes);

const NOW = 1_790_000_000_000_000_000n;
const daysAgo = (d: number) => NOW - BigInt(d) * NS_PER_DAY;

test("l'école and c'était find the messages holding them in both tiers, and l'homme still does", async () => {
  // 4 KiB history.json: the first messages are compacted into the archive, the last ones stay recent.
  const { api } = openTemp({ env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" }, now: () => NOW, drain: "off" });
  try {
    let day = 300;
    const say = (content: string) => api.add("s", { role: "user", content, sendAt: daysAgo(day--) });
    const texts = [
      "on se retrouve devant l'école demain",
      "c'était une panne du réseau",
      "l'homme du support a répondu",
    ];
    for (const t of texts) say(`old ${t}`);
    for (let i = 0; i < 40; i++) say(`padding message ${i}${" filler".repeat(20)}`);
    for (const t of texts) say(`new ${t}`);
    for (const [query, text] of [
      ["l'école", texts[0]!],
      ["l’école", texts[0]!],
      ["devant l'école", texts[0]!],
      ["c'était", texts[1]!],
      ["l'homme", texts[2]!],
    ] as const) {
      const r = await api.search({ query, match: "keyword", limit: 20 });
      const found = r.hits.map((h) => h.message.content).sort();
      expect({ query, found }).toEqual({ query, found: [`new ${text}`, `old ${text}`] });
    }
  } finally {
    api.close();
  }
}, 60_000);

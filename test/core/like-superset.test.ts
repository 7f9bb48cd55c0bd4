// LIKE selects rows holding İ or the Kelvin sign for a needle ending in i or holding k (JS lower-cases them into i̇
// and k):
// such rows, newer than the rows that hold the needle, must not take their places in a recent substring match.
import { afterAll, expect, test } from "bun:test";
import { openMemory } from "../../src/app/open-memory.ts";
import { removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

const NOW = 1_790_000_000_000_000_000n;

test("rows LIKE selects without the needle do not push out older rows that hold it", async () => {
  const home = tempHome();
  const api = openMemory({ home, env: {}, now: () => NOW, drain: "off" });
  try {
    const at = (i: number) => NOW - BigInt(1_000 - i) * 1_000_000_000n;
    // Older: ten rows that hold "kilnworks", of which the query "ilnwork" is a part (only the substring match
    // finds them); newer: sixty in Turkish with the Kelvin sign, which LIKE selects for the needle's "k".
    const holding = Array.from({ length: 10 }, (_, i) => ({
      role: "user" as const,
      content: `note ${i} about the kilnworks`,
      sendAt: at(i),
    }));
    const turkish = Array.from({ length: 60 }, (_, i) => ({
      role: "user" as const,
      content: `İstanbul ofisi ${i}: 5\u212A kablo`,
      sendAt: at(100 + i),
    }));
    api.add("atelier", [...holding, ...turkish]);
    api.add("other", [{ role: "user", content: "unrelated", sendAt: at(500) }]);
    for (const session of ["atelier", undefined]) {
      const r = await api.search({ query: "ilnwork", session, limit: 10 });
      expect({ session, found: r.hits.filter((h) => h.message.content.includes("kilnworks")).length }).toEqual({
        session,
        found: 10,
      });
    }
  } finally {
    api.close();
  }
});

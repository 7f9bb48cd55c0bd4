import { afterAll, describe, expect, test } from "bun:test";
import { openTemp, removeTempHomes } from "../fixture/home.ts";

afterAll(removeTempHomes);

const NOW = 1_790_000_000_000_000_000n;
const WORDS = [
  "deploy",
  "redeploying",
  "Deployment",
  "deploys",
  "undeployable",
  "server",
  "servers",
  "observer",
  "log",
  "catalog",
  "blog",
  "login",
  "dialogue",
  "ÄRGERLICH",
  "ärger",
  "東京都",
  "a&&b",
  "x->y",
];

describe("keyword search over recent rows", () => {
  test("finds every message that holds the query as a case-insensitive substring (a superset of those), ranked or not, with or without typing", async () => {
    const { api } = openTemp({ now: () => NOW });
    try {
      let x = 7;
      const rnd = () => {
        x = (x * 1103515245 + 12345) % 2147483648;
        return x / 2147483648;
      };
      const contents = Array.from(
        { length: 300 },
        (_, i) => `m${i} ` + Array.from({ length: 6 }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(" "),
      );
      api.add(
        "s",
        contents.map((content, i) => ({
          role: "user" as const,
          content,
          sendAt: NOW - BigInt(300 - i) * 1_000_000_000n,
        })),
      );
      // Across sessions the substring index answers (short needles too); in one session, the scan.
      for (const q of [
        "deploy",
        "server",
        "log",
        "DEPLOY server",
        "observ",
        "ploy",
        "ärger",
        "東京",
        "og",
        "g",
        "rgerl",
      ]) {
        const needles = q.toLowerCase().split(" ");
        const expected = contents.filter((c) => needles.every((n) => c.toLowerCase().includes(n)));
        for (const typing of [false, true]) {
          const got = new Set((await api.search({ query: q, limit: 1000, typing })).hits.map((h) => h.message.content));
          expect(expected.filter((c) => !got.has(c))).toEqual([]);
          for (const session of ["s"]) {
            const inSession = new Set(
              (await api.search({ query: q, session, limit: 1000, typing })).hits.map((h) => h.message.content),
            );
            expect(expected.filter((c) => !inSession.has(c))).toEqual([]);
          }
        }
      }
    } finally {
      api.close();
    }
  });
});

describe("the word being typed", () => {
  test("matches as a prefix in the archive only when the caller says a person is typing", async () => {
    const { api } = openTemp({ now: () => NOW, env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" } });
    try {
      const pad = " filler".repeat(40);
      api.add("a", { role: "user", content: "we deployed the kubernetes cluster" + pad, sendAt: NOW - 1000n });
      for (let i = 0; i < 40; i++)
        api.add("a", { role: "assistant", content: `later message ${i}` + pad, sendAt: NOW - 900n + BigInt(i) });
      const archived = (r: { hits: { source: string; message: { content: string } }[] }) =>
        r.hits.filter((h) => h.source === "archive").map((h) => h.message.content.slice(0, 11));
      expect(archived(await api.search({ query: "clust" }))).toEqual([]);
      expect(archived(await api.search({ query: "clust", typing: true }))).toEqual(["we deployed"]);
      expect(archived(await api.search({ query: "clust ", typing: true }))).toEqual([]); // a space ends the word
      expect(archived(await api.search({ query: "cluster" }))).toEqual(["we deployed"]);
    } finally {
      api.close();
    }
  });
});

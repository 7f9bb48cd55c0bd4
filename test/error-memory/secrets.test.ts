import { afterAll, describe, expect, test } from "bun:test";
import { removeTempHomes } from "../fixture/home.ts";
import { okBody, startFakeEmbeddings } from "../fixture/fake-embeddings.ts";
import { errorHome, filesContaining } from "./error-home.ts";
import { SECRETS } from "./secrets.ts";

afterAll(removeTempHomes);

const json = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? x.toString() : x));

/** The secret's distinctive runs, as written and lower-cased (the FTS index holds lower-case tokens). */
function needles(parts: readonly string[]): string[] {
  const runs = parts.flatMap((p) => [p, ...(p.match(/[A-Za-z0-9]{10,}/g) ?? [])]);
  return [...new Set(runs.flatMap((r) => [r, r.toLowerCase()]))];
}

describe("secrets are redacted before anything is stored or embedded", () => {
  test("no secret form reaches SQLite, the vector store, the embedder or any output", async () => {
    const fake = startFakeEmbeddings([], { body: okBody(8) });
    try {
      const { api, home } = errorHome({
        embedder: { provider: "openai", base_url: fake.url, model: "fake-embed", dimensions: 8, max_retries: 0 },
      });
      const outputs: unknown[] = [];
      SECRETS.forEach((s, i) => expect(s.text).toContain(s.secretParts[0]!));
      for (const [i, s] of SECRETS.entries()) {
        const keyword = s.keyword ?? s.secretParts[0]!;
        const keywords = keyword !== "" && keyword.length <= 64 ? [keyword, "rotated"] : ["rotated"];
        const r = await api.recordError({
          tool: `tool${i}`,
          error: s.text,
          cause: `seen with ${s.text}`,
          fix: `rotate it: ${s.text}`,
          keywords,
        });
        expect(r.redacted.length).toBeGreaterThan(0);
        expect(r.record.embedded).toBe(true);
        outputs.push(r);
        outputs.push(await api.searchErrors({ query: s.text, limit: 20 }));
      }
      outputs.push(api.listErrors({ limit: 100 }));
      for (const r of api.listErrors({ limit: 100 }).records) outputs.push(api.getError(r.id));
      const sent = fake.seen.map((r) => json(r.json)).join("\n");
      expect(fake.seen.length).toBeGreaterThan(SECRETS.length);
      api.close();

      const out = json(outputs);
      for (const s of SECRETS) {
        for (const n of needles(s.secretParts)) {
          expect({ secret: s.name, needle: n, files: filesContaining(home, n) }).toEqual({
            secret: s.name,
            needle: n,
            files: [],
          });
          expect(out.includes(n)).toBe(false);
          expect(sent.includes(n)).toBe(false);
        }
        for (const keep of s.keep) expect(out).toContain(keep);
      }
    } finally {
      fake.stop();
    }
  }, 30_000);

  test("a secret found in one field is redacted in the record's other fields, where it has no context", async () => {
    const { api, home } = errorHome();
    const r = await api.recordError({
      tool: "psql",
      error: "could not connect to postgres://admin:Hx7-rotate-q2@db.internal:5432/prod",
      cause: "the password 'Hx7-rotate-q2' expired",
      fix: "rotated the key; the new one is given as PGPASSWORD=Kq4-new-pass-9, not Kq4-new-pass-9 in the url",
      keywords: ["Hx7-rotate-q2", "password"],
    });
    const out = json([r, api.listErrors({ limit: 10 })]);
    api.close();
    for (const secret of ["Hx7-rotate-q2", "Kq4-new-pass-9"]) {
      expect(out).not.toContain(secret);
      expect(filesContaining(home, secret)).toEqual([]);
      expect(filesContaining(home, secret.toLowerCase())).toEqual([]);
    }
    expect(r.record.cause).toBe("the password '[REDACTED:url-password]' expired");
  }, 30_000);

  test("the file scan does find text that was stored (the check above can fail)", async () => {
    const { api, home } = errorHome();
    await api.recordError({ tool: "t", error: "plain marker Zqxjvwkpty42 in the error", fix: "nothing secret" });
    api.close();
    expect(filesContaining(home, "Zqxjvwkpty42").length).toBeGreaterThan(0);
    expect(filesContaining(home, "zqxjvwkpty42").length).toBeGreaterThan(0);
  }, 30_000);
});

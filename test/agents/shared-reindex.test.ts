// reindex on a shared archive with its HTTP embedder down: it fails before dropping the vectors that embedder made.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, removeTempHomes, tempHome } from "../fixture/home.ts";
import { okBody, startFakeEmbeddings } from "../fixture/fake-embeddings.ts";
import { describePostgres, startPostgres, type PgServer } from "../fixture/postgres-server.ts";
import { startS3Server, type S3Server } from "../fixture/s3-server.ts";

const describe = describePostgres();

describe("reindex on a shared archive", () => {
  let pg: PgServer;
  let s3: S3Server;
  const fake = startFakeEmbeddings([], { body: okBody(8) });

  beforeAll(async () => {
    [pg, s3] = await Promise.all([startPostgres(), startS3Server()]);
  }, 180_000);
  afterAll(async () => {
    fake.stop();
    await Promise.all([pg?.stop(), s3?.stop()]);
    removeTempHomes();
  }, 60_000);

  test("a refused key leaves the stored vectors in place", async () => {
    const env = { ...s3.env, MEMVOY_ARCHIVE_URL: await pg.createDatabase("reindex"), OPENAI_API_KEY: "sk-fake" };
    const home = tempHome();
    const embedder = `[embedder]\nprovider = "openai"\nbase_url = "${fake.url}"\nmodel = "fake-embed"\ndimensions = 8\n`;
    writeFileSync(join(home, "config.toml"), `${s3.vectorsToml("reindex")}\n${embedder}`);
    const lines = ["the build is red", "the login test times out"].map((content) =>
      JSON.stringify({ role: "user", content }),
    );
    expect((await cli(["add", "s"], { home, env, stdin: lines.join("\n") })).code).toBe(0);
    const first = await cli(["reindex"], { home, env });
    expect(first.code, first.stderr).toBe(0);

    fake.fail({ status: 401, body: '{"error":{"message":"invalid key"}}' });
    const down = await cli(["reindex"], { home, env });
    expect(down.code).toBe(1);
    expect(down.stderr).toContain("rejected the API key (401)");

    fake.fail(undefined);
    const found = await cli(["search", "the login test times out", "--match", "semantic", "--json"], { home, env });
    expect(found.code, found.stderr).toBe(0);
    const r = JSON.parse(found.stdout) as { notIndexed: number; hits: { content: string }[] };
    expect(r.notIndexed).toBe(0);
    expect(r.hits[0]?.content).toBe("the login test times out");
  }, 120_000);

  test("a reindex after the embedder changed rebuilds the error records' vectors too", async () => {
    const env = { ...s3.env, MEMVOY_ARCHIVE_URL: await pg.createDatabase("reindex_errors"), OPENAI_API_KEY: "sk-fake" };
    const home = tempHome();
    const embedder = (model: string) =>
      `[embedder]\nprovider = "openai"\nbase_url = "${fake.url}"\nmodel = "${model}"\ndimensions = 8\n`;
    writeFileSync(join(home, "config.toml"), `${s3.vectorsToml("reindex-errors")}\n${embedder("fake-embed")}`);
    const rec = [
      "errors",
      "record",
      "--tool",
      "npm",
      "--error",
      "could not resolve the dependency tree",
      "--fix",
      "pin it",
    ];
    expect((await cli(rec, { home, env })).code).toBe(0);

    writeFileSync(join(home, "config.toml"), `${s3.vectorsToml("reindex-errors")}\n${embedder("fake-embed-2")}`);
    const listed = await cli(["errors", "list", "--json"], { home, env });
    expect(JSON.parse(listed.stdout).records.map((x: { embedded: boolean }) => x.embedded)).toEqual([false]);
    const rebuilt = await cli(["reindex", "--json"], { home, env });
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    const report = JSON.parse(rebuilt.stdout) as { errorsEmbedded: number; dropped: string[] };
    expect(report.errorsEmbedded).toBe(1);
    expect(report.dropped).toContain("openai:fake-embed:8");
    const after = await cli(["errors", "list", "--json"], { home, env });
    expect(JSON.parse(after.stdout).records.map((x: { embedded: boolean }) => x.embedded)).toEqual([true]);
  }, 120_000);
});

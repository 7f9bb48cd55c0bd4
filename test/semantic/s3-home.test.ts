// A home whose vectors live in LanceDB on S3-compatible storage ([vectors] uri, keys from the environment):
// the semantic tier works end to end and nothing is written under .store/lance; keys in config.toml are refused.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, removeTempHomes, tempHome } from "../fixture/home.ts";
import { filesHolding } from "../fixture/files-holding.ts";
import { startS3Server, type S3Server } from "../fixture/s3-server.ts";
import { openMessageVectors } from "../../src/storage/ports/vector-port.ts";

const T = 180_000;
let s3: S3Server;
beforeAll(async () => {
  s3 = await startS3Server();
}, T);
afterAll(async () => {
  await s3?.stop();
  removeTempHomes();
});

function homeWith(toml: string): string {
  const home = tempHome();
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, "config.toml"), toml);
  return home;
}

test(
  "reindex writes the vectors to the bucket, semantic search reads them, the home has no local vector store",
  async () => {
    const home = homeWith(s3.vectorsToml("home-a"));
    const jsonl = ["the nightly backup failed on the upload step", "lunch is at noon", "the cat sleeps all day"]
      .map((content) => JSON.stringify({ role: "user", content }))
      .join("\n");
    expect((await cli(["add", "s"], { home, stdin: jsonl, env: s3.env })).code).toBe(0);
    const re = await cli(["reindex"], { home, env: s3.env });
    expect(re.code, re.stderr).toBe(0);
    const found = await cli(["search", "backup job broke", "--match", "semantic", "--json"], { home, env: s3.env });
    expect(found.code, found.stderr).toBe(0);
    expect(found.stdout).toContain("nightly backup");
    expect(existsSync(join(home, ".store", "lance"))).toBe(false);
    const store = await openMessageVectors(s3.location("home-a"));
    const tables = await store.tables();
    expect(tables).toHaveLength(1);
    const t = (await store.table(tables[0]!.embedderId, 0))!;
    expect(await t.count()).toBe(3);
    t.close();
    store.close();
  },
  T,
);

test(
  "a key in config.toml is refused with exit 2, naming the environment variable and never echoing the value",
  async () => {
    const secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
    const home = homeWith(`${s3.vectorsToml("home-b")}secret_access_key = "${secret}"\n`);
    const r = await cli(["config", "check"], { home });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("vectors.secret_access_key");
    expect(r.stderr).toContain("AWS_SECRET_ACCESS_KEY");
    expect(r.stdout + r.stderr).not.toContain(secret);
    const show = await cli(["config", "show"], {
      home: homeWith(s3.vectorsToml("home-b")),
      env: { AWS_SECRET_ACCESS_KEY: secret },
    });
    expect(show.code).toBe(0);
    expect(show.stdout).toContain("s3://");
    expect(show.stdout + show.stderr).not.toContain(secret);
  },
  T,
);

test(
  "an S3 store without keys in the environment: one clear line, exit 2",
  async () => {
    const home = homeWith(s3.vectorsToml("home-c"));
    const r = await cli(["search", "anything", "--match", "semantic"], { home });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("AWS_ACCESS_KEY_ID");
  },
  T,
);

test(
  "an unreachable store fails without printing its keys",
  async () => {
    const secret = "S3cr3t-Value-That-Must-Not-Leak-0123456789";
    const home = homeWith(
      ["[vectors]", 'uri = "s3://nobucket/x"', 'endpoint = "http://127.0.0.1:9"', "allow_http = true", ""].join("\n"),
    );
    const env = { AWS_ACCESS_KEY_ID: "AKIDEXAMPLE12345", AWS_SECRET_ACCESS_KEY: secret };
    expect((await cli(["add", "s", "--role", "user", "--content", "hello there"], { home, env })).code).toBe(0);
    const r = await cli(["reindex"], { home, env });
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).not.toContain(secret);
    expect(r.stdout + r.stderr).not.toContain("AKIDEXAMPLE12345");
  },
  T,
);

test(
  "keys the store refuses, or a bucket it does not have: one line saying what to check, exit 2, no secret",
  async () => {
    const secret = "S3cr3t-Value-That-Must-Not-Leak-0123456789";
    const wrongKeys = { AWS_ACCESS_KEY_ID: "AKIDNOTKNOWNHERE", AWS_SECRET_ACCESS_KEY: secret };
    for (const [home, env, check] of [
      [homeWith(s3.vectorsToml("home-d")), wrongKeys, "check the keys in MEMVOY_S3_ACCESS_KEY_ID / AWS_ACCESS_KEY_ID"],
      [
        homeWith(s3.vectorsToml("home-d").replace(`s3://${s3.bucket}/`, "s3://no-such-bucket/")),
        s3.env,
        "check the bucket in [vectors] uri",
      ],
    ] as const) {
      expect((await cli(["add", "s", "--role", "user", "--content", "hello there"], { home, env })).code).toBe(0);
      const r = await cli(["search", "hello", "--match", "semantic"], { home, env });
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toStartWith("memvoy: cannot open the vector store s3://");
      expect(r.stderr).toContain(check);
      expect(r.stdout + r.stderr).not.toContain(secret);
    }
  },
  T,
);

test(
  "rm-message on a home whose vectors are in the bucket: no object keeps the removed row's id or vector",
  async () => {
    const home = homeWith(s3.vectorsToml("home-rm"));
    // Enough other messages that the removed row is under a tenth of its fragment (LanceDB's compaction rewrites a
    // fragment by itself only past that).
    const others = Array.from(
      { length: 14 },
      (_, i) => `note ${i}: ${["lunch", "deploy", "cat", "tea"][i % 4]} ${i * 7}`,
    );
    const jsonl = ["the nightly backup failed on the upload step", "my token is zqxj81k2 keep it", ...others]
      .map((content) => JSON.stringify({ role: "user", content }))
      .join("\n");
    expect((await cli(["add", "s", "--json"], { home, stdin: jsonl, env: s3.env })).code).toBe(0);
    const re = await cli(["reindex"], { home, env: s3.env });
    expect(re.code, re.stderr).toBe(0);
    const found = await cli(["search", "zqxj81k2", "--json"], { home, env: s3.env });
    const id = JSON.parse(found.stdout).hits[0].id as string;
    const store = await openMessageVectors(s3.location("home-rm"));
    const t = (await store.table((await store.tables())[0]!.embedderId, 0))!;
    let vector: Float32Array | undefined;
    for await (const batch of t.batches()) vector ??= batch.find((r) => r.id === id)?.vector;
    t.close();
    store.close();
    const bytes = new Uint8Array(vector!.buffer, vector!.byteOffset, 64).slice();
    const objects = join(s3.dir, s3.bucket, "home-rm");
    expect(filesHolding(objects, bytes).length).toBeGreaterThan(0);
    const r = await cli(["rm-message", id], { home, env: s3.env });
    expect(r.code, r.stderr).toBe(0);
    expect([...filesHolding(objects, id), ...filesHolding(objects, bytes)]).toEqual([]);
    const after = await cli(["search", "nightly backup", "--match", "semantic", "--json"], { home, env: s3.env });
    expect(after.stdout).toContain("nightly backup");
  },
  T,
);

test(
  "an endpoint whose host name does not resolve is named as such, in one line",
  async () => {
    const home = homeWith(s3.vectorsToml("home-dns").replace(s3.endpoint, "http://s3-typo.invalid:9000"));
    expect((await cli(["add", "s", "--role", "user", "--content", "hello there"], { home, env: s3.env })).code).toBe(0);
    const r = await cli(["search", "hello", "--match", "semantic"], { home, env: s3.env });
    expect({ code: r.code, stderr: r.stderr }).toEqual({
      code: 1,
      stderr:
        "memvoy: cannot open the vector store s3://memvoy-test/home-dns: the endpoint's host name does not resolve (failed to lookup address information: Name or service not known) (http://s3-typo.invalid:9000/memvoy-test)\n",
    });
  },
  T,
);

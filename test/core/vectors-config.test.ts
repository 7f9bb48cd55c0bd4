// [vectors]: the home's folder by default; an s3:// uri with its options; keys only from the environment
// (memvoy's own names first), refused in config.toml; bad uris and endpoints with credentials refused.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, validateConfig } from "../../src/config/load.ts";
import { describeLocation, vectorLocation } from "../../src/storage/ports/vector-location.ts";

const dir = mkdtempSync(join(tmpdir(), "memvoy-vcfg-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const vectors = (raw: Record<string, unknown>) => validateConfig({ vectors: raw }, "test").vectors;
const keys = { AWS_ACCESS_KEY_ID: "AKIDEXAMPLE", AWS_SECRET_ACCESS_KEY: "secret-example-123" };

test("the default is the home's folder, with no environment needed", () => {
  const c = validateConfig({}, "test").vectors;
  expect(c.uri).toBe("");
  expect(vectorLocation(c, "/h/.store/lance", {})).toEqual({ kind: "local", dir: "/h/.store/lance" });
});

test("an s3 uri: storage options from the config, keys from the environment, the bound in seconds", () => {
  const c = vectors({ uri: "s3://team-memory/memvoy/", endpoint: "http://127.0.0.1:9000", allow_http: true });
  const loc = vectorLocation(c, "/unused", keys);
  expect(loc).toEqual({
    kind: "s3",
    uri: "s3://team-memory/memvoy",
    storageOptions: {
      awsAccessKeyId: "AKIDEXAMPLE",
      awsSecretAccessKey: "secret-example-123",
      awsRegion: "us-east-1",
      allowHttp: "true",
      virtualHostedStyleRequest: "false",
      connect_timeout: "5s",
      client_max_retries: "2",
      awsEndpoint: "http://127.0.0.1:9000",
    },
    readConsistencySeconds: 2,
    answer: { timeoutMs: 15_000, endpoint: "http://127.0.0.1:9000" },
    secrets: ["AKIDEXAMPLE", "secret-example-123"],
  });
  expect(describeLocation(loc)).toBe("s3://team-memory/memvoy");
  const own = vectorLocation(c, "/unused", {
    ...keys,
    MEMVOY_S3_ACCESS_KEY_ID: "MINE",
    MEMVOY_S3_SECRET_ACCESS_KEY: "mine-secret",
    AWS_SESSION_TOKEN: "tok-123456",
  });
  expect(own.kind === "s3" && own.storageOptions).toMatchObject({
    awsAccessKeyId: "MINE",
    awsSecretAccessKey: "mine-secret",
    awsSessionToken: "tok-123456",
  });
});

test("the wait for the store's first answer: 15 s by default, 1 s to 10 min, named by AWS without an endpoint", () => {
  const aws = vectorLocation(vectors({ uri: "s3://team-memory/x", answer_timeout_ms: 60_000 }), "/unused", keys);
  expect(aws.kind === "s3" && aws.answer).toEqual({ timeoutMs: 60_000, endpoint: "AWS S3" });
  for (const bad of [999, 600_001, 1.5, "15s"])
    expect(() => vectors({ uri: "s3://team-memory/x", answer_timeout_ms: bad })).toThrow("vectors.answer_timeout_ms:");
});

test("a bucket name S3 refuses is named with the rule, not as a uri of the wrong form", () => {
  for (const [uri, bucket] of [
    ["s3://b/p", "b"],
    ["s3://Team-Memory/x", "Team-Memory"],
    ["s3://-memory/x", "-memory"],
    [`s3://${"a".repeat(64)}`, "a".repeat(64)],
  ])
    expect(() => vectors({ uri })).toThrow(
      `vectors.uri: the bucket name "${bucket}" is not one S3 allows: 3 to 63 lowercase letters, digits, dots and hyphens, starting and ending with a letter or digit`,
    );
  expect(() => vectors({ uri: "s3:///x" })).toThrow('vectors.uri: expected "" (the home) or s3://bucket/prefix');
  for (const uri of ["s3://abc", "s3://my.team-memory/x/y/", `s3://${"a".repeat(63)}/p`])
    expect(vectors({ uri }).uri).toBe(uri);
});

test("no keys in the environment: a clear input error naming the variables", () => {
  const c = vectors({ uri: "s3://team-memory/x" });
  expect(() => vectorLocation(c, "/unused", { AWS_ACCESS_KEY_ID: "AKIDEXAMPLE" })).toThrow(
    "vectors.uri is s3://team-memory/x but MEMVOY_S3_SECRET_ACCESS_KEY / AWS_SECRET_ACCESS_KEY is not set",
  );
  const err = (() => {
    try {
      vectorLocation(c, "/unused", {});
    } catch (e) {
      return e as { exitCode?: number };
    }
  })();
  expect(err?.exitCode).toBe(2);
});

test("bad uris, endpoints carrying credentials and keys in the file are refused, naming the key", () => {
  expect(() => vectors({ uri: "/some/dir" })).toThrow("vectors.uri:");
  expect(() => vectors({ uri: "s3://" })).toThrow("vectors.uri:");
  // As a URL the prefix would end at # or ? (team#1 and team#2 would share one store) or be decoded at %.
  for (const uri of ["s3://team-memory/team#1", "s3://team-memory/a?b", "s3://team-memory/pct%41"])
    expect(() => vectors({ uri })).toThrow(
      "vectors.uri: the prefix cannot hold #, ? or % (the object store's URL would cut it there or decode it)",
    );
  expect(vectors({ uri: "s3://team-memory/équipe-1" }).uri).toBe("s3://team-memory/équipe-1");
  expect(() => vectors({ endpoint: "http://user:pw@host:9000" })).toThrow("vectors.endpoint:");
  expect(() => vectors({ endpoint: "ftp://host" })).toThrow("vectors.endpoint:");
  for (const endpoint of ["http://127.0.0.1:", "http://host:port", "http://host:9000:1"])
    expect(() => vectors({ endpoint })).toThrow("vectors.endpoint:");
  for (const endpoint of ["http://[::1]:9000", "https://s3.example.com", "http://minio:9000/", "http://127.0.0.1:9000"])
    expect(vectors({ endpoint }).endpoint).toBe(endpoint);
  for (const [key, env] of [
    ["access_key_id", "AWS_ACCESS_KEY_ID"],
    ["secret_access_key", "AWS_SECRET_ACCESS_KEY"],
    ["session_token", "AWS_SESSION_TOKEN"],
  ]) {
    let message = "";
    try {
      vectors({ uri: "s3://bucket-a/x", [key!]: "the-value-xyz" });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain(`vectors.${key}: a secret is never read from config.toml`);
    expect(message).toContain(env!);
    expect(message).not.toContain("the-value-xyz");
  }
});

test("MEMVOY_VECTORS_* override the file like any other key", () => {
  const file = join(dir, "config.toml");
  writeFileSync(file, '[vectors]\nuri = "s3://from-file/x"\n');
  const c = loadConfig(file, { MEMVOY_VECTORS_URI: "s3://from-env/y", MEMVOY_VECTORS_READ_CONSISTENCY_MS: "0" });
  expect(c.vectors.uri).toBe("s3://from-env/y");
  expect(c.vectors.read_consistency_ms).toBe(0);
});

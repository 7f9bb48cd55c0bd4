// A damaged message-vector table (a data file gone, manifests cut short): semantic search and doctor name the
// damage and the way out, and reindex rebuilds the table from the archive, even one LanceDB can no longer open.
import { afterAll, expect, test } from "bun:test";
import { openSync, readdirSync, rmSync, statSync, truncateSync, writeSync, closeSync } from "node:fs";
import { join } from "node:path";
import { openMemory } from "../../src/app/open-memory.ts";
import { startFakeEmbeddings } from "../fixture/fake-embeddings.ts";
import { cli, removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

/**
 * 20 messages and their vectors, made by reindex alone: written with no drain, so that no background drain can
 * write a new version of the table after the test damages it.
 */
async function indexedHome(): Promise<string> {
  const home = tempHome();
  const api = openMemory({ home, env: {}, drain: "off" });
  api.add(
    "k",
    Array.from({ length: 20 }, (_, i) => ({
      role: i % 2 ? ("assistant" as const) : ("user" as const),
      content: `deploy the kubernetes cluster, step ${i}`,
    })),
  );
  api.close();
  expect((await cli(["reindex"], { home })).code).toBe(0);
  return home;
}

function table(home: string): string {
  const lance = join(home, ".store", "lance");
  const name = readdirSync(lance).find((n) => n.startsWith("messages_"));
  expect(name).toBeDefined();
  return join(lance, name!);
}

/** Overwrite the last bytes of every data file of the table with `tail` (a Lance file ends with its version and magic). */
function overwriteDataTail(dir: string, tail: number[]): void {
  for (const f of readdirSync(join(dir, "data"))) {
    const path = join(dir, "data", f);
    const fd = openSync(path, "r+");
    writeSync(fd, Buffer.from(tail), 0, tail.length, statSync(path).size - tail.length);
    closeSync(fd);
  }
}

// What the reason in parentheses holds: LanceDB's words, with or without its "lance error:" prefix.
const LANCE_ERROR = /lance error: .+/;
const damages: [string, (dir: string) => void, RegExp][] = [
  [
    "a data file removed",
    (dir) => readdirSync(join(dir, "data")).forEach((f) => rmSync(join(dir, "data", f))),
    LANCE_ERROR,
  ],
  [
    "every manifest cut short",
    (dir) =>
      readdirSync(join(dir, "_versions"))
        .filter((f) => f.endsWith(".manifest"))
        .forEach((f) => truncateSync(join(dir, "_versions", f), 50)),
    LANCE_ERROR,
  ],
  [
    "every manifest cut to a few bytes",
    (dir) =>
      readdirSync(join(dir, "_versions"))
        .filter((f) => f.endsWith(".manifest"))
        .forEach((f) => truncateSync(join(dir, "_versions", f), 10)),
    LANCE_ERROR,
  ],
  // Bytes overwritten in place (a disk or a copy gone bad): LanceDB's words then have no "lance error:".
  [
    "a data file's closing magic overwritten",
    (dir) => overwriteDataTail(dir, [0, 0, 0, 0]),
    /not appear to be a Lance file/,
  ],
  [
    "a data file's format version overwritten",
    (dir) => overwriteDataTail(dir, [99, 0, 1, 0, 0x4c, 0x41, 0x4e, 0x43]),
    /Unknown Lance storage version/,
  ],
];

for (const [what, damage, reason] of damages) {
  test(`semantic search on a vector table with ${what} says so; reindex rebuilds it`, async () => {
    const home = await indexedHome();
    damage(table(home));

    const broken = await cli(["search", "kubernetes", "--match", "semantic"], { home });
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/^memvoy: the vector table messages_\S+ is damaged \(.+\); /);
    expect(broken.stderr).toMatch(reason);
    expect(broken.stderr).toContain("run memvoy reindex to rebuild it from the archive");
    const doctor = await cli(["doctor"], { home });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/\nthe vector table messages_\S+ is damaged \(.+\); run memvoy reindex/);
    const hybrid = await cli(["search", "kubernetes", "--match", "hybrid"], { home });
    expect(hybrid.code).toBe(0);
    expect(hybrid.stderr).toContain("is damaged");

    const rebuilt = await cli(["reindex"], { home });
    expect(rebuilt.stderr).toBe("");
    expect(rebuilt.code).toBe(0);
    expect(rebuilt.stdout).toContain("embedded 20 message(s)");
    const found = await cli(["search", "deploy the kubernetes cluster, step 7", "--match", "semantic", "--json"], {
      home,
    });
    expect(found.code).toBe(0);
    expect(JSON.parse(found.stdout).hits[0].content).toBe("deploy the kubernetes cluster, step 7");
    expect((await cli(["doctor"], { home })).stdout).toContain("all good");
  }, 60_000);
}

test("an older embedder's table cut short neither stops semantic search nor reindex, which drops it", async () => {
  const home = await indexedHome(); // builtin vectors
  const manifests = join(table(home), "_versions");
  for (const f of readdirSync(manifests).filter((n) => n.endsWith(".manifest"))) truncateSync(join(manifests, f), 50);
  const f = startFakeEmbeddings([]);
  try {
    const env = {
      OPENAI_API_KEY: "sk-fake",
      MEMVOY_EMBEDDER_PROVIDER: "openai",
      MEMVOY_EMBEDDER_BASE_URL: f.url,
      MEMVOY_EMBEDDER_MODEL: "fake-embed",
      MEMVOY_EMBEDDER_DIMENSIONS: "8",
    };
    const doctor = await cli(["doctor"], { home, env });
    expect(doctor.stdout).toMatch(/the vector table messages_builtin\S+ is damaged/);
    const rebuilt = await cli(["reindex"], { home, env });
    expect(rebuilt.stderr).toBe("");
    expect(rebuilt.code).toBe(0);
    expect(rebuilt.stdout).toMatch(/embedded 20 message\(s\); dropped vectors of messages_builtin\S+/);
    expect(readdirSync(join(home, ".store", "lance")).filter((n) => n.startsWith("messages_builtin"))).toEqual([]);
    const found = await cli(["search", "deploy the kubernetes cluster, step 7", "--match", "semantic"], { home, env });
    expect(found.code).toBe(0);
    expect(found.stderr).not.toContain("damaged");
    expect((await cli(["doctor"], { home, env })).stdout).toContain("all good");
  } finally {
    f.stop();
  }
}, 60_000);

test("a table made again after its versions were lost holds fewer vectors than were made: doctor names it until reindex", async () => {
  const home = await indexedHome();
  rmSync(join(table(home), "_versions"), { recursive: true });
  // The next drain makes the table again with the new message only; the 20 earlier ones stay marked as embedded.
  const api = openMemory({ home, env: {}, drain: "off" });
  api.add("k", [{ role: "user", content: "one more step" }]);
  api.close();
  expect((await cli(["reindex", "--pending"], { home })).code).toBe(0);
  const check = await cli(["doctor"], { home });
  expect(check.code).toBe(1);
  expect(check.stdout).toContain("holds 1 message vector(s) of builtin:v1:384, but 21 recent message(s) were embedded");
  expect(check.stdout).toContain("memvoy reindex");
  expect((await cli(["reindex"], { home })).code).toBe(0);
  expect(await cli(["doctor"], { home })).toMatchObject({ code: 0, stdout: expect.stringContaining("all good") });
});

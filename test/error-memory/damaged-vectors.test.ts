// Error memory's vectors damaged or gone (a data file removed, the table's folder left out of a backup): errors
// search still answers by keyword and names the damage, doctor names it, and reindex rebuilds them from the archive.
import { afterAll, expect, test } from "bun:test";
import { readdirSync, rmSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { openMemory } from "../../src/app/open-memory.ts";
import { cli, removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

const RECORDS = [
  ["npm", "npm ERR! code ERESOLVE could not resolve the dependency tree", "npm install --legacy-peer-deps"],
  ["git", "fatal: pathspec 'notes.txt' did not match any files", "check the file name with git status"],
  [
    "docker",
    "permission denied while trying to connect to the Docker daemon socket",
    "add the user to the docker group",
  ],
] as const;

const RECORD_AGAIN = ["--tool", RECORDS[0][0], "--error", RECORDS[0][1], "--fix", RECORDS[0][2]];

const recordedId = (stdout: string) => /^recorded (\w+)/.exec(stdout)![1]!;

async function errorHome(): Promise<string> {
  const home = tempHome("memvoy-errvec-");
  for (const [tool, error, fix] of RECORDS)
    expect((await cli(["errors", "record", "--tool", tool, "--error", error, "--fix", fix], { home })).code).toBe(0);
  return home;
}

function errorTable(home: string): string {
  const lance = join(home, ".store", "lance");
  const name = readdirSync(lance).find((n) => n.startsWith("error_memory_"));
  expect(name).toBeDefined();
  return join(lance, name!);
}

async function lookup(home: string) {
  const r = await cli(["errors", "search", "the dependency tree could not be resolved", "--json"], { home });
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as { hits: { id: string; tool: string; matchedBy: string[] }[]; notes: string[] };
}

async function expectRebuilt(home: string): Promise<void> {
  const rebuilt = await cli(["reindex"], { home });
  expect(rebuilt.stderr).toBe("");
  expect(rebuilt.code).toBe(0);
  expect(rebuilt.stdout).toContain("and 3 error record(s)");
  const after = await lookup(home);
  expect(after.notes).toEqual([]);
  expect(after.hits[0]!.tool).toBe("npm");
  expect(after.hits[0]!.matchedBy).toContain("semantic");
  const doctor = await cli(["doctor"], { home });
  expect(doctor.stdout).toContain("all good");
  expect(doctor.code).toBe(0);
}

test("a data file of the error vectors removed: search names it, doctor too, reindex rebuilds them", async () => {
  const home = await errorHome();
  const data = join(errorTable(home), "data");
  for (const f of readdirSync(data)) rmSync(join(data, f));

  const broken = await lookup(home);
  expect(broken.hits[0]!.tool).toBe("npm"); // by keyword
  expect(broken.notes).toHaveLength(1);
  expect(broken.notes[0]).toMatch(
    /^semantic lookup unavailable, keyword results only: the vector table error_memory_\S+ is damaged \(.+\); run memvoy reindex to rebuild it from the archive$/,
  );
  const doctor = await cli(["doctor"], { home });
  expect(doctor.code).toBe(1);
  expect(doctor.stdout).toMatch(/\nthe vector table error_memory_\S+ is damaged \(.+\); run memvoy reindex/);

  const removed = await cli(["errors", "rm", (await lookup(home)).hits[0]!.id], { home });
  expect(removed.code).toBe(0);
  expect(removed.stderr).toMatch(
    /^memvoy: vectors of removed records stay until the next sweep: the vector table error_memory_\S+ is damaged \(.+\); run memvoy reindex/,
  );
  expect((await cli(["errors", "record", ...RECORD_AGAIN], { home })).code).toBe(0);

  await expectRebuilt(home);
}, 60_000);

test("every manifest of the error vectors cut short: record and search name it, reindex rebuilds them", async () => {
  const home = await errorHome();
  const versions = join(errorTable(home), "_versions");
  for (const f of readdirSync(versions).filter((n) => n.endsWith(".manifest"))) truncateSync(join(versions, f), 10);

  const recorded = await cli(
    ["errors", "record", "--tool", "pip", "--error", "No matching distribution", "--fix", "pin it"],
    {
      home,
    },
  );
  expect(recorded.code).toBe(0);
  expect(recorded.stderr).toMatch(
    /^memvoy: recorded without a vector for now .*: the vector table error_memory_\S+ is damaged \(.+\); run memvoy reindex/,
  );
  const broken = await lookup(home);
  expect(broken.hits[0]!.tool).toBe("npm");
  expect(broken.notes[0]).toMatch(
    /^semantic lookup unavailable, keyword results only: the vector table error_memory_\S+ is damaged/,
  );
  const doctor = await cli(["doctor"], { home });
  expect(doctor.code).toBe(1);
  expect(doctor.stdout).toMatch(/\nthe vector table error_memory_\S+ is damaged \(.+\); run memvoy reindex/);
  expect((await cli(["errors", "rm", recordedId(recorded.stdout)], { home })).code).toBe(0);

  await expectRebuilt(home);
}, 60_000);

test("the error vectors' table gone while the archive says they were made: doctor names it, reindex embeds them", async () => {
  const home = await errorHome();
  rmSync(errorTable(home), { recursive: true });

  const doctor = await cli(["doctor"], { home });
  expect(doctor.code).toBe(1);
  expect(doctor.stdout).toContain(
    "holds no error-memory vectors of builtin:v1:384, but 3 error record(s) were embedded: the next errors search embeds them again (or run memvoy reindex)",
  );

  await expectRebuilt(home);
}, 60_000);

test("the error vectors' table gone: the next search embeds the records again and finds them by meaning", async () => {
  const home = await errorHome();
  rmSync(join(home, ".store", "lance"), { recursive: true });

  const healed = await lookup(home);
  expect(healed.notes).toEqual([]);
  expect(healed.hits[0]!.tool).toBe("npm");
  expect(healed.hits[0]!.matchedBy).toContain("semantic");
  const listed = JSON.parse((await cli(["errors", "list", "--json"], { home })).stdout) as {
    records: { embedded: boolean }[];
  };
  expect(listed.records.map((r) => r.embedded)).toEqual([true, true, true]);
  expect((await cli(["doctor"], { home })).stdout).toContain("all good");
}, 60_000);

test("the error vectors' table gone: the daemon's catch-up (embedPendingErrors) embeds the records again", async () => {
  const home = await errorHome();
  rmSync(join(home, ".store", "lance"), { recursive: true });
  const api = openMemory({ home, env: {}, drain: "off" });
  try {
    expect(await api.embedPendingErrors()).toEqual({ embedded: 3, pending: 0 });
  } finally {
    api.close();
  }
}, 60_000);

test("the error vectors' table made again after its versions were lost holds fewer vectors than were made: doctor names it", async () => {
  const home = await errorHome();
  rmSync(join(errorTable(home), "_versions"), { recursive: true });
  // The next record makes the table again with its own vector only; the 3 earlier ones stay marked as embedded.
  const more = ["--tool", "make", "--error", "Makefile:3: *** missing separator. Stop.", "--fix", "indent with a tab"];
  expect((await cli(["errors", "record", ...more], { home })).code).toBe(0);
  const doctor = await cli(["doctor"], { home });
  expect(doctor.code).toBe(1);
  expect(doctor.stdout).toContain(
    "holds 1 error-memory vector(s) of builtin:v1:384, but 4 error record(s) were embedded: errors search matches 3 of them by their words only until memvoy reindex runs",
  );
  const rebuilt = await cli(["reindex"], { home });
  expect([rebuilt.code, rebuilt.stdout]).toEqual([0, expect.stringContaining("and 4 error record(s)")]);
  expect(await cli(["doctor"], { home })).toMatchObject({ code: 0, stdout: expect.stringContaining("all good") });
}, 60_000);

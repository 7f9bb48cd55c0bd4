import { afterAll, describe, expect, test } from "bun:test";
import { openMemory } from "../../src/app/open-memory.ts";
import { cli, removeTempHomes, tempHome } from "../fixture/home.ts";
import { filesContaining } from "./error-home.ts";

// Each case runs about a dozen CLI processes in series: a bound generous enough for a loaded machine.
const SERIAL_CLI_MS = 120_000;

afterAll(removeTempHomes);

const RFC3339_NS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$/;

async function json(home: string, args: string[], stdin?: string) {
  const r = await cli([...args, "--json"], { home, stdin });
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
  return JSON.parse(r.stdout);
}

describe("memvoy errors", () => {
  test(
    "record, merge, search, list, show and rm, each printing one JSON document",
    async () => {
      const home = tempHome("memvoy-errors-cli-");
      const rec = await json(home, [
        "errors",
        "record",
        "--tool",
        "git",
        "--error",
        "fatal: Unable to create '/home/a/.git/index.lock': File exists.",
        "--fix",
        "rm .git/index.lock",
        "--keywords",
        "lock,Git",
        "--keywords",
        "stale",
      ]);
      expect(rec.merged).toBe(false);
      expect(rec.record).toMatchObject({
        tool: "git",
        outcome: "resolved",
        keywords: ["lock", "git", "stale"],
        cause: null,
        lastHitAt: null,
        hits: 0,
        occurrences: 1,
        embedded: true,
      });
      expect(rec.record.id).toMatch(/^[0-9a-f]{8}$/);
      for (const k of ["createdAt", "updatedAt", "expiresAt"]) expect(rec.record[k]).toMatch(RFC3339_NS);

      const merged = await json(
        home,
        [
          "errors",
          "record",
          "--tool",
          "git",
          "--error",
          "-",
          "--fix",
          "check for a running git, then rm .git/index.lock",
          "--cause",
          "a crashed git",
          "--outcome",
          "resolved",
        ],
        "fatal: Unable to create '/srv/b/.git/index.lock': File exists.\n",
      );
      expect(merged.merged).toBe(true);
      expect(merged.record).toMatchObject({ id: rec.record.id, occurrences: 2, cause: "a crashed git" });
      await json(home, [
        "errors",
        "record",
        "--tool",
        "docker",
        "--error",
        "Bind for 0.0.0.0:8080 failed: port is already allocated",
        "--fix",
        "docker ps; stop the other container",
        "--outcome",
        "failed",
      ]);

      const found = await json(home, ["errors", "search", "another", "git", "process", "holds", "index.lock"]);
      expect(found.hits.map((h: { id: string }) => h.id)).toEqual([rec.record.id]);
      expect(found.hits[0]).toMatchObject({ hits: 1, matchedBy: expect.arrayContaining(["keyword"]) });
      expect(found.hits[0].lastHitAt).toMatch(RFC3339_NS);
      const viaStdin = await json(
        home,
        ["errors", "search", "-", "--tool", "docker"],
        "port 8080 is already allocated",
      );
      expect(viaStdin.hits.map((h: { tool: string }) => h.tool)).toEqual(["docker"]);
      expect((await json(home, ["errors", "search", "port already allocated", "--tool", "git"])).hits).toEqual([]);

      const list = await json(home, ["errors", "list"]);
      expect(list.total).toBe(2);
      expect(list.records.map((r: { tool: string }) => r.tool)).toEqual(["docker", "git"]);
      expect(
        (await json(home, ["errors", "list", "--outcome", "failed"])).records.map((r: { tool: string }) => r.tool),
      ).toEqual(["docker"]);

      const shown = await json(home, ["errors", "show", rec.record.id.slice(0, 5)]);
      expect(shown).toMatchObject({
        id: rec.record.id,
        fix: "check for a running git, then rm .git/index.lock",
        hits: 1,
      });
      const rm = await json(home, ["errors", "rm", rec.record.id]);
      expect(rm.removed.id).toBe(rec.record.id);
      expect((await json(home, ["errors", "list"])).total).toBe(1);
      expect(await json(home, ["errors", "sweep"])).toEqual({ removed: 0, vectorsRemoved: 0, notes: [] });
    },
    SERIAL_CLI_MS,
  );

  test(
    "text output: the fix is shown; no hit prints nothing on stdout",
    async () => {
      const home = tempHome("memvoy-errors-cli-");
      const r1 = await cli(
        [
          "errors",
          "record",
          "--tool",
          "psql",
          "--error",
          "FATAL: sorry, too many clients already",
          "--fix",
          "put pgbouncer in front",
        ],
        { home },
      );
      expect(r1.code).toBe(0);
      expect(r1.stdout).toMatch(/^recorded [0-9a-f]{8} \(psql, resolved\)\n$/);
      const hit = await cli(["errors", "search", "too many clients"], { home });
      expect(hit.code).toBe(0);
      expect(hit.stdout).toContain("fix:   put pgbouncer in front");
      const none = await cli(["errors", "search", "banana smoothie recipe"], { home });
      expect(none).toEqual({ code: 0, stdout: "", stderr: "memvoy: no error record matches\n" });
    },
    SERIAL_CLI_MS,
  );

  test(
    "an unknown id and an ambiguous prefix exit 2 with one clear line",
    async () => {
      const home = tempHome("memvoy-errors-cli-");
      const api = openMemory({ home, env: {} });
      const ids: string[] = [];
      for (let i = 0; i < 20; i++)
        ids.push((await api.recordError({ tool: `tool${i}`, error: `failure number ${i}`, fix: "x" })).record.id);
      api.close();
      const shared = [...new Set(ids.map((i) => i[0]!))].find((c) => ids.filter((i) => i.startsWith(c)).length > 1)!;
      const amb = await cli(["errors", "show", shared], { home });
      expect(amb.code).toBe(2);
      expect(amb.stdout).toBe("");
      expect(amb.stderr).toMatch(
        new RegExp(`^memvoy: error id prefix "${shared}" is ambiguous: .*give more characters\\n$`),
      );
      const unknown = "0123456789abcdef"
        .split("")
        .flatMap((a) => "0123456789abcdef".split("").map((b) => a + b))
        .find((p) => !ids.some((i) => i.startsWith(p)))!;
      const un = await cli(["errors", "rm", unknown, "--json"], { home });
      expect(un.code).toBe(2);
      expect(JSON.parse(un.stdout).error.message).toBe(`no error record with id "${unknown}" (see memvoy errors list)`);
      expect(un.stderr.split("\n")).toHaveLength(2);
      expect((await json(home, ["errors", "list"])).total).toBe(20);
    },
    SERIAL_CLI_MS,
  );

  test(
    "bad command lines exit 2 and store nothing; every subcommand has help",
    async () => {
      const home = tempHome("memvoy-errors-cli-");
      const bad = [
        ["errors", "record", "--tool", "git", "--error", "x"],
        ["errors", "record", "--tool", "git", "--error", "x", "--fix", "y", "--outcome", "perhaps"],
        ["errors", "record", "--tool", "git", "--error", "x", "--fix", "y", "--bogus"],
        ["errors", "search"],
        ["errors", "search", "x", "--limit", "0"],
        ["errors", "list", "--limit", "0"],
        ["errors", "list", "--limit", "99999999999999999999"],
        ["errors", "list", "--limit", "9223372036854775808"],
        ["errors", "search", "x", "--other-tools"],
        ["errors", "show"],
        ["errors", "frobnicate"],
        ["errors"],
      ];
      for (const args of bad) {
        const r = await cli(args, { home });
        expect({ args, code: r.code }).toEqual({ args, code: 2 });
        expect(r.stderr).toMatch(/^memvoy: .+\n$/);
      }
      expect((await json(home, ["errors", "list"])).total).toBe(0);
      expect((await cli(["errors", "list", "--limit", "99999999999999999999"], { home })).stderr).toBe(
        "memvoy: error list: limit: limit must be a whole number from 1 to 1000000\n",
      );
      for (const sub of ["record", "search", "list", "show", "rm", "sweep"]) {
        const h = await cli(["errors", sub, "--help"]);
        expect(h.code).toBe(0);
        expect(h.stdout.trimStart()).toStartWith(`Usage: memvoy errors ${sub}`);
      }
      const top = await cli(["errors", "--help"]);
      expect(top.stdout).toContain("any unique prefix works");
      expect((await cli(["--help"])).stdout).toContain("errors record|search|list|show|rm");
    },
    SERIAL_CLI_MS,
  );
});

test(
  "errors rm leaves none of the record's words in any file of the home, its index included",
  async () => {
    const home = tempHome("memvoy-errors-cli-");
    const words = ["Frobnicatorqz", "Quokkaplinth"];
    await json(home, [
      "errors",
      "record",
      "--local",
      "--tool",
      "npm",
      "--error",
      `ERESOLVE peer dep ${words[0]}`,
      "--fix",
      `pin ${words[1]}`,
    ]);
    await json(home, [
      "errors",
      "record",
      "--local",
      "--tool",
      "git",
      "--error",
      "fatal: index.lock exists",
      "--fix",
      "rm it",
    ]);
    const listed = await json(home, ["errors", "list"]);
    const id = listed.records.find((r: { tool: string }) => r.tool === "npm").id;
    const needles = words.flatMap((w) => [w, w.toLowerCase()]); // the index holds the lower-cased words
    expect(needles.some((n) => filesContaining(home, n).length > 0)).toBe(true);
    await json(home, ["errors", "rm", id, "--local"]);
    for (const n of needles) expect({ n, files: filesContaining(home, n) }).toEqual({ n, files: [] });
    expect((await json(home, ["errors", "search", "index.lock exists"])).hits).toHaveLength(1);
  },
  SERIAL_CLI_MS,
);

test("text on stdin that is not UTF-8 is refused as it is as an argument, and so is a folder", async () => {
  const home = tempHome("memvoy-errors-stdin-");
  const latin1 = new Uint8Array([...Buffer.from("caf"), 0xe9, ...Buffer.from(" failed to start")]);
  const recorded = await cli(["errors", "record", "--tool", "svc", "--error", "-", "--fix", "restart it"], {
    home,
    stdin: latin1,
  });
  expect(recorded.stderr).toBe("memvoy: errors record: stdin is not valid UTF-8; nothing was written\n");
  expect(recorded.code).toBe(2);
  const searched = await cli(["errors", "search", "-"], { home, stdin: latin1 });
  expect(searched.stderr).toBe("memvoy: errors search: stdin is not valid UTF-8; nothing was written\n");
  expect(searched.code).toBe(2);
  const folder = Bun.spawn(
    ["bash", "-c", `"$0" "$1" --home "$2" errors record --tool svc --error - --fix f < /`, "bun", "src/index.ts", home],
    { cwd: `${import.meta.dir}/../..`, stdout: "pipe", stderr: "pipe" },
  );
  expect(await new Response(folder.stderr).text()).toBe(
    "memvoy: errors record: stdin is a folder, not a file; nothing was written\n",
  );
  expect(await folder.exited).toBe(2);
  expect((await json(home, ["errors", "list"])).records).toEqual([]);
  const utf8 = await json(home, ["errors", "record", "--tool", "svc", "--error", "-", "--fix", "f"], "café failed\n");
  expect(utf8.record.error).toBe("café failed");
}, 60_000);

test("errors search cuts a long error in its middle: a traceback's last line, naming the exception, is shown", async () => {
  const home = tempHome("memvoy-errors-cut-");
  const frames = ["main", "run", "load"].flatMap((f, i) => [
    `  File "/app/${f}.py", line ${i + 3}, in ${f}`,
    `    ${f}()`,
  ]);
  const traceback = ["Traceback (most recent call last):", ...frames, "ModuleNotFoundError: No module named pandas"];
  await json(
    home,
    ["errors", "record", "--local", "--tool", "python", "--error", "-", "--fix", "pip install pandas"],
    traceback.join("\n"),
  );
  const r = await cli(["errors", "search", "--local", "No module named pandas"], { home });
  expect(r.code).toBe(0);
  const shown = r.stdout
    .split("\n")
    .slice(1, 8)
    .map((l) => l.trim());
  expect(shown).toEqual([
    "error: Traceback (most recent call last):",
    'File "/app/main.py", line 3, in main',
    "main()",
    'File "/app/run.py", line 4, in run',
    "… 2 more lines",
    "load()",
    "ModuleNotFoundError: No module named pandas",
  ]);
}, 60_000);

test("errors record --fix - and --cause - read stdin, as --error - does; two fields from stdin are refused", async () => {
  const home = tempHome("memvoy-errors-stdin-fields-");
  const args = ["errors", "record", "--local", "--tool", "git", "--error", "cannot pull with rebase"];
  const fixed = await json(home, [...args, "--fix", "-"], "git stash\ngit pull --rebase\n");
  expect(fixed.record.fix).toBe("git stash\ngit pull --rebase");
  const caused = await json(home, [...args, "--fix", "stash first", "--cause", "-"], "unstaged changes\n");
  expect([caused.record.cause, caused.record.fix]).toEqual(["unstaged changes", "stash first"]);
  const both = await cli([...args.slice(0, 5), "--error", "-", "--fix", "-"], { home, stdin: "x" });
  expect({ code: both.code, stderr: both.stderr }).toEqual({
    code: 2,
    stderr: "memvoy: errors record: give --error - or --fix -, not both\n",
  });
});

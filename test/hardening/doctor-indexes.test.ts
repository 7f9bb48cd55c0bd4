// A full-text index emptied or cut by another program (the messages and error records still there) makes search
// find nothing without a word: doctor names each such index (exit 1) and --repair rebuilds it from the archive.
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { cli, openTemp, removeTempHomes } from "../fixture/home.ts";

afterAll(removeTempHomes);

interface Report {
  findings: { problem: string; repaired?: string }[];
  ok: boolean;
}

const doctor = async (home: string, ...flags: string[]) => {
  const r = await cli(["doctor", "--json", ...flags], { home });
  return { code: r.code, report: JSON.parse(r.stdout) as Report };
};

const hits = async (home: string, query: string) => {
  const r = await cli(["search", query, "--match", "keyword", "--limit", "100", "--json"], { home });
  expect(r.code).toBe(0);
  return (JSON.parse(r.stdout) as { hits: unknown[] }).hits.length;
};

test("an emptied or cut full-text index is named by doctor and rebuilt by --repair", async () => {
  const { home, api } = openTemp({ drain: "off" });
  api.add(
    "s1",
    Array.from({ length: 40 }, (_, i) => ({
      role: i % 2 === 0 ? ("user" as const) : ("assistant" as const),
      content: `note ${i} on the zebrafish pipeline ${"x".repeat(i)}`,
    })),
  );
  await api.recordError({
    tool: "npm",
    error: "ENOENT: no such file, open package.json",
    fix: "run it in the project root",
  });
  api.close();
  expect(await hits(home, "zebrafish")).toBeGreaterThan(0);
  expect((await doctor(home)).code).toBe(0);

  const db = new Database(join(home, ".store", "history.db"));
  for (const t of ["messages_fts", "messages_trigram", "messages_trigram_archived", "error_records_fts"])
    if (db.query("SELECT 1 FROM sqlite_master WHERE name = ?").get(t))
      db.run(`INSERT INTO ${t}(${t}) VALUES ('delete-all')`);
  db.close();
  expect(await hits(home, "zebrafish")).toBe(0);

  const found = await doctor(home);
  expect(found.code).toBe(1);
  const problems = found.report.findings.map((f) => f.problem).join("\n");
  expect(problems).toContain("the keyword index holds 0 entries for 40 message(s)");
  expect(problems).toContain("the substring index holds 0 entries for 40 message(s)");
  expect(problems).toContain("the error-memory index holds 0 entries for 1 error record(s)");

  const repaired = await doctor(home, "--repair");
  expect(repaired.code).toBe(0);
  expect(repaired.report.findings.every((f) => f.repaired?.startsWith("rebuilt the "))).toBe(true);
  expect((await doctor(home)).code).toBe(0);
  expect(await hits(home, "zebrafish")).toBe(40);
  const errors = await cli(["errors", "search", "ENOENT package.json", "--json"], { home });
  expect(errors.stdout).toContain("project root");

  // One row cut out of the keyword index is a gap too.
  const cut = new Database(join(home, ".store", "history.db"));
  cut.run("DELETE FROM messages_fts WHERE rowid = (SELECT min(seq) FROM messages)");
  cut.close();
  const one = await doctor(home);
  expect(one.code).toBe(1);
  expect(one.report.findings.map((f) => f.problem).join("\n")).toContain("the keyword index holds 39 entries for 40");
  expect((await doctor(home, "--repair")).code).toBe(0);
  expect(await hits(home, "zebrafish")).toBe(40);
});

test("a dropped full-text index table is named by doctor and made again by --repair, with its options", async () => {
  const { home, api } = openTemp({ drain: "off" });
  api.add("s1", [{ role: "user", content: "the zebrafish pipeline broke" }]);
  await api.recordError({ tool: "git", error: "fatal: not a git repository", fix: "run git init first" });
  api.close();
  const path = join(home, ".store", "history.db");
  const options = () => {
    const db = new Database(path, { readonly: true });
    try {
      return db.query("SELECT k, v FROM messages_fts_config UNION ALL SELECT k, v FROM error_records_fts_config").all();
    } finally {
      db.close();
    }
  };
  const before = options();
  const db = new Database(path);
  for (const t of ["messages_fts", "error_records_fts"]) db.run(`DROP TABLE ${t}`);
  db.close();

  // Until the repair, a command that needs the table says where to look instead of SQLite's bare words.
  const add = await cli(["add", "s1", "--role", "user", "--content", "x"], { home });
  expect(add.code).toBe(1);
  expect(add.stderr.trim()).toMatch(
    /^memvoy: the archive \.store\/history\.db lacks part of memvoy's schema \(no such table: messages_fts_\w+\): run `memvoy doctor` to see what is wrong, then `memvoy doctor --repair`$/,
  );
  const found = await doctor(home);
  expect(found.code).toBe(1);
  const problems = found.report.findings.map((f) => f.problem).join("\n");
  expect(problems).toContain("the keyword index is missing");
  expect(problems).toContain("the error-memory index is missing");
  expect((await doctor(home, "--repair")).code).toBe(0);
  expect(options()).toEqual(before); // secure-delete as the migrations set it
  expect((await doctor(home)).code).toBe(0);
  expect(await hits(home, "zebrafish")).toBe(1);
  expect((await cli(["errors", "search", "not a git repository", "--json"], { home })).stdout).toContain("git init");
  expect((await cli(["add", "s1", "--role", "user", "--content", "zebrafish again"], { home })).code).toBe(0);
  expect(await hits(home, "zebrafish")).toBe(2); // "x" was never stored
});

test("a keyword index holding entries of rows gone from the archive is named as such and rebuilt", async () => {
  const { home, api } = openTemp({ drain: "off" });
  api.add("s1", [
    { role: "user", content: "the zebrafish pipeline broke" },
    { role: "assistant", content: "restart the zebrafish worker" },
  ]);
  api.close();
  const db = new Database(join(home, ".store", "history.db"));
  db.run("INSERT INTO messages_fts (rowid, body, sess) VALUES (999999, 'a stray entry', 'sx')");
  db.close();
  const found = await doctor(home);
  expect(found.code).toBe(1);
  expect(found.report.findings.map((f) => f.problem).join("\n")).toContain(
    "the keyword index holds 3 entries for 2 message(s) (changed by another program): it keeps entries of rows no longer in the archive",
  );
  expect((await doctor(home, "--repair")).code).toBe(0);
  expect((await doctor(home)).code).toBe(0);
  expect(await hits(home, "zebrafish")).toBe(2);
});

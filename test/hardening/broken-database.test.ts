// doctor on a broken history.db (wrong header, truncated, garbled): it names the file and what is wrong, says
// what SQLite can still read and what a rebuild loses, changes nothing without --repair and a yes, then moves
// the broken files aside and rebuilds from the salvage plus the history.json files.
import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { tryLockFile } from "../../src/shared/file-lock.ts";
import { cli, removeTempHomes, repoRoot, tempHome, waitFor } from "../fixture/home.ts";

afterAll(removeTempHomes);

async function seededHome(): Promise<string> {
  const home = tempHome();
  const env = { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" };
  const lines = Array.from({ length: 40 }, (_, i) =>
    JSON.stringify({ role: i % 2 ? "assistant" : "user", content: `message ${i} about the deploy ${"z".repeat(300)}` }),
  ).join("\n");
  expect((await cli(["add", "s1"], { home, env, stdin: lines })).code).toBe(0);
  expect((await cli(["add", "s2", "--role", "user", "--content", "a short session"], { home })).code).toBe(0);
  expect(
    (
      await cli(
        ["errors", "record", "--tool", "kubectl", "--error", "OOMKilled exit 137", "--fix", "raise limits.memory"],
        { home },
      )
    ).code,
  ).toBe(0);
  await waitFor(() => !existsSync(join(home, ".store", "history.db-wal")), 15_000, "the background drain to finish");
  return home;
}

const db = (home: string) => join(home, ".store", "history.db");

function damage(home: string, how: "header" | "truncate" | "garble"): void {
  const path = db(home);
  if (how === "truncate") return truncateSync(path, Math.floor(statSync(path).size / 2));
  const fd = openSync(path, "r+");
  try {
    if (how === "header") writeSync(fd, Buffer.from("this is not sqlite!!"), 0, 20, 0);
    else
      for (let page = 2; page * 4096 < statSync(path).size; page += 3)
        writeSync(fd, Buffer.alloc(4096, 0x5a), 0, 4096, page * 4096);
  } finally {
    closeSync(fd);
  }
}

/** Overwrite every page of one table or index (its b-tree, as SQLite's dbstat lists it) with garbage. */
function garbleTable(home: string, name: string): void {
  const reader = new Database(db(home), { readonly: true });
  const pages = (reader.query("SELECT pageno FROM dbstat WHERE name = ?").all(name) as { pageno: number }[]).map(
    (r) => r.pageno,
  );
  const size = (reader.query("PRAGMA page_size").get() as { page_size: number }).page_size;
  reader.close();
  expect(pages.length).toBeGreaterThan(0);
  const fd = openSync(db(home), "r+");
  try {
    for (const page of pages) writeSync(fd, Buffer.alloc(size, 0x5a), 0, size, (page - 1) * size);
  } finally {
    closeSync(fd);
  }
}

for (const how of ["header", "truncate", "garble"] as const) {
  test(`doctor and doctor --repair on a history.db with a ${how === "header" ? "wrong header" : how === "truncate" ? "truncated file" : "garbled body"}`, async () => {
    const home = await seededHome();
    damage(home, how);
    const before = readFileSync(db(home));
    // Any command names the file and points to doctor.
    const other = await cli(["history", "s1"], { home });
    if (other.code !== 0) {
      expect(other.stderr).toContain("history.db");
      expect(other.stderr).toContain("doctor");
    }
    const check = await cli(["doctor"], { home });
    expect(check.code).toBe(1);
    expect(check.stdout).toContain(db(home));
    expect(check.stdout).toMatch(/not an SQLite database|malformed|integrity check/);
    expect(check.stdout).toContain("SQLite can still read");
    expect(check.stdout).toContain("history.json files add");
    expect(check.stdout).toContain("doctor --repair");
    // --repair without a yes (no terminal to ask on) changes nothing.
    const refused = await cli(["doctor", "--repair"], { home });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain("nothing was changed");
    expect(readFileSync(db(home)).equals(before)).toBe(true);
    const fixed = await cli(["doctor", "--repair", "--yes"], { home });
    expect(fixed.code).toBe(0);
    expect(readdirSync(join(home, ".store")).some((n) => n.startsWith("history.db.broken-"))).toBe(true);
    // The rebuilt home works: every message history.json holds is back, searches run, doctor is clean.
    const inFile = JSON.parse(readFileSync(join(home, "sessions", "s1", "history.json"), "utf8")) as { id: string }[];
    const h = await cli(["history", "s1", "--all", "--json"], { home });
    expect(h.code).toBe(0);
    const ids = JSON.parse(h.stdout).messages.map((m: { id: string }) => m.id);
    for (const r of inFile) expect(ids).toContain(r.id);
    expect((await cli(["search", "deploy"], { home })).code).toBe(0);
    expect((await cli(["add", "s2", "--role", "assistant", "--content", "after the rebuild"], { home })).code).toBe(0);
    const after = await cli(["doctor"], { home });
    expect(after.stdout).not.toContain("broken");
    expect(existsSync(db(home))).toBe(true);
  });
}

test("a history.db cut to 0 bytes is named by every command, not taken for a new archive; doctor --repair rebuilds it", async () => {
  const home = await seededHome();
  truncateSync(db(home), 0);
  // Every command names it: an add does not start a new archive over it, so nothing only the archive held is lost unsaid.
  for (const args of [["sessions"], ["add", "s2", "--role", "user", "--content", "x"], ["search", "deploy"]]) {
    const r = await cli(args, { home });
    expect({ args, code: r.code }).toEqual({ args, code: 1 });
    expect(r.stderr).toContain(`${db(home)} is broken (empty: 0 bytes`);
    expect(r.stderr).toContain("memvoy doctor");
  }
  expect(statSync(db(home)).size).toBe(0);
  const check = await cli(["doctor", "--json"], { home });
  expect(check.code).toBe(1);
  const plan = JSON.parse(check.stdout).broken;
  expect(plan.problem).toContain("empty: 0 bytes");
  expect(plan.fromHistoryFiles).toBeGreaterThan(0);
  const fixed = await cli(["doctor", "--repair", "--yes"], { home });
  expect(fixed.code).toBe(0);
  expect(fixed.stdout).toContain("rebuilt the archive with");
  expect((await cli(["add", "s2", "--role", "user", "--content", "after the rebuild"], { home })).code).toBe(0);
  // A new home's archive is empty only while it is made: the first command on an empty home still works.
  const fresh = tempHome();
  mkdirSync(join(fresh, ".store"), { recursive: true });
  writeFileSync(db(fresh), "");
  expect((await cli(["add", "s1", "--role", "user", "--content", "first"], { home: fresh })).code).toBe(0);
});

test("a header-only damage salvages nothing and says what is lost", async () => {
  const home = await seededHome();
  damage(home, "header");
  const r = await cli(["doctor", "--json"], { home });
  const out = JSON.parse(r.stdout);
  expect(out.broken.salvaged.messages).toBe(0);
  expect(out.broken.lost.join(" ")).toContain("archive-only messages");
  expect(out.broken.lost.join(" ")).toContain("error-memory");
  expect(out.broken.fromHistoryFiles).toBeGreaterThan(0);
});

test("a history.json that repeats an id still gives the rebuild its records (the first of each id)", async () => {
  const home = await seededHome();
  const file = join(home, "sessions", "s2", "history.json");
  const records = JSON.parse(readFileSync(file, "utf8")) as { id: string }[];
  writeFileSync(file, JSON.stringify([...records, { ...records[0]!, content: "a second copy" }]));
  damage(home, "header");
  const out = JSON.parse((await cli(["doctor", "--json"], { home })).stdout);
  expect(out.broken.fromHistoryFiles).toBeGreaterThan(records.length - 1);
  expect((await cli(["doctor", "--repair", "--yes"], { home })).code).toBe(0);
  const h = await cli(["history", "s2", "--all", "--json"], { home });
  expect(h.code).toBe(0);
  expect(JSON.parse(h.stdout).messages.map((m: { content: string }) => m.content)).toEqual(["a short session"]);
});

test("doctor --repair killed before the rebuilt archive takes the broken one's place loses nothing", async () => {
  const home = await seededHome();
  damage(home, "garble");
  const before = readFileSync(db(home));
  const planned = JSON.parse((await cli(["doctor", "--json"], { home })).stdout).broken;
  const killed = await cli(["doctor", "--repair", "--yes"], {
    home,
    env: { MEMVOY_TEST_FAULT: "before-rebuild-swap" },
  });
  expect(killed.code).not.toBe(0);
  // The broken archive is still in place, whole: doctor still reports it and what it can save.
  expect(readFileSync(db(home)).equals(before)).toBe(true);
  const again = JSON.parse((await cli(["doctor", "--json"], { home })).stdout).broken;
  expect(again.salvaged.messages).toBe(planned.salvaged.messages);
  // A kill while the rebuilt file was being made, before it went to WAL mode, leaves its rollback journal.
  writeFileSync(join(home, ".store", "history.db.broken-2026-01-01T000000000000000Z.rebuilding-journal"), "x");
  const fixed = await cli(["doctor", "--repair", "--yes"], { home });
  expect(fixed.code).toBe(0);
  // Every message the salvage read is in the rebuilt archive, with those only history.json files held.
  const rebuilt = Number(/rebuilt the archive with (\d+) message/.exec(fixed.stdout)?.[1]);
  expect(rebuilt).toBeGreaterThanOrEqual(planned.salvaged.messages + planned.fromHistoryFiles);
  const store = readdirSync(join(home, ".store"));
  expect(store.filter((n) => n.includes(".rebuilding"))).toEqual([]);
  expect(store.filter((n) => n.startsWith("history.db.broken-")).length).toBeGreaterThan(0);
  expect((await cli(["doctor"], { home })).stdout).not.toContain("broken");
});

test("a rebuild keeps the tombstones and the sessions' import metadata: a removed message stays removed", async () => {
  const home = tempHome();
  const line = (o: Record<string, string>) => JSON.stringify(o);
  const exported = [
    line({ type: "session", id: "cc-one", source: "claude-code", title: "Fix the build", project: "/src/shop" }),
    line({
      type: "message",
      id: "01KQH0000000000000000000A1",
      session: "cc-one",
      role: "user",
      content: "the build fails",
      sendAt: "2026-05-01T09:30:00.000000000Z",
    }),
    line({
      type: "message",
      id: "01KQH0000000000000000000A2",
      session: "cc-one",
      role: "assistant",
      content: "my token is secret-to-remove",
      sendAt: "2026-05-01T09:30:01.000000000Z",
    }),
  ].join("\n");
  expect((await cli(["import", "jsonl", "-"], { home, stdin: exported })).code).toBe(0);
  expect((await cli(["rm-message", "01KQH0000000000000000000A2"], { home })).code).toBe(0);
  // The full-text index's pages are garbled: SQLite still reads every table the rebuild copies.
  garbleTable(home, "messages_fts_data");
  const check = JSON.parse((await cli(["doctor", "--json"], { home })).stdout);
  expect(check.broken.lost).toEqual([]);
  expect((await cli(["doctor", "--repair", "--yes"], { home })).code).toBe(0);
  const sessions = JSON.parse((await cli(["sessions", "--json"], { home })).stdout);
  expect(sessions).toMatchObject([
    { id: "cc-one", source: "claude-code", title: "Fix the build", project: "/src/shop" },
  ]);
  const again = JSON.parse((await cli(["import", "jsonl", "-", "--json"], { home, stdin: exported })).stdout);
  expect(again.sources[0].messages).toMatchObject({ added: 0, tombstoned: 1 });
  expect((await cli(["export", "cc-one"], { home })).stdout).not.toContain("secret-to-remove");
  // A header-only damage reads no table: the doctor says what that loses.
  damage(home, "header");
  const lost = JSON.parse((await cli(["doctor", "--json"], { home })).stdout).broken.lost.join(" ");
  expect(lost).toContain("the record of removed messages");
  expect(lost).toContain("title and project of imported sessions");
});

test("a few garbled pages of the messages table lose only the rows on them: the salvage reads the rest", async () => {
  const home = tempHome();
  const env = { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "8192" };
  const lines = Array.from({ length: 900 }, (_, i) =>
    JSON.stringify({ role: i % 2 ? "assistant" : "user", content: `message ${i} about the deploy ${"q".repeat(120)}` }),
  ).join("\n");
  expect((await cli(["add", "s1"], { home, env, stdin: lines })).code).toBe(0);
  await waitFor(() => !existsSync(join(home, ".store", "history.db-wal")), 15_000, "the background drain to finish");
  // Two leaf pages of the messages table, apart from each other, overwritten.
  const probe = new Database(db(home), { readonly: true });
  const leaves = (
    probe.query("SELECT pageno FROM dbstat WHERE name = 'messages' AND pagetype = 'leaf' ORDER BY pageno").all() as {
      pageno: number;
    }[]
  ).map((r) => r.pageno);
  probe.close();
  expect(leaves.length).toBeGreaterThan(20);
  const fd = openSync(db(home), "r+");
  for (const page of [leaves[5]!, leaves[leaves.length - 6]!])
    writeSync(fd, Buffer.alloc(4096, 0x5a), 0, 4096, (page - 1) * 4096);
  closeSync(fd);
  const check = await cli(["doctor"], { home, env });
  expect(check.code).toBe(1);
  const readable = Number(/SQLite can still read: (\d+) message/.exec(check.stdout)?.[1]);
  expect(readable).toBeGreaterThan(800);
  expect((await cli(["doctor", "--repair", "--yes"], { home, env })).code).toBe(0);
  const h = await cli(["history", "s1", "--all", "--json"], { home, env });
  expect(JSON.parse(h.stdout).messages.length).toBeGreaterThan(800);
});

test("a rebuild keeps the form of an Agenvoy session's history.json: the file a reset deleted comes back with integer sendAt", async () => {
  const home = tempHome();
  const file = join(home, "sessions", "s", "history.json");
  mkdirSync(join(home, "sessions", "s"), { recursive: true, mode: 0o700 });
  writeFileSync(
    file,
    '[{"role":"user","content":"where is the ferry","sendAt":1786000000123456789},{"role":"assistant","content":"on the harbour page","sendAt":1786000001123456789}]',
    { mode: 0o600 },
  );
  expect((await cli(["history", "s"], { home })).code).toBe(0);
  expect((await cli(["reset", "s"], { home })).code).toBe(0);
  garbleTable(home, "messages_fts_data");
  expect((await cli(["doctor", "--repair", "--yes"], { home })).code).toBe(0);
  expect((await cli(["add", "s", "--role", "user", "--content", "and the return trip?"], { home })).code).toBe(0);
  expect(readFileSync(file, "utf8")).toMatch(/"sendAt":\d{19}\}/);
});

/** A `doctor --repair --yes` run, read as it prints: `until(text)` resolves once its stdout holds `text`. */
function repairRun(home: string) {
  const proc = Bun.spawn(["bun", join(repoRoot, "src/index.ts"), "--home", home, "doctor", "--repair", "--yes"], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let out = "";
  const reader = proc.stdout.getReader();
  const done = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      out += new TextDecoder().decode(value);
    }
  })();
  return {
    until: (text: string) => waitFor(() => out.includes(text), 30_000, `doctor to print "${text}"`),
    result: async () => {
      const code = await proc.exited;
      await done;
      return { code, stdout: out, stderr: await new Response(proc.stderr).text() };
    },
  };
}

test("two doctor --repair at once: one rebuilds, the other waits for it and rebuilds nothing more", async () => {
  const home = await seededHome();
  damage(home, "garble");
  // Another writer holds the home while both plan: each then waits for the lock before it rebuilds.
  const release = tryLockFile(join(home, ".store", "write.lock"))!;
  const first = repairRun(home);
  const second = repairRun(home);
  try {
    await first.until("a rebuild loses");
    await second.until("a rebuild loses");
  } finally {
    release();
  }
  const results = [await first.result(), await second.result()];
  // Each says so when it finds the lock held, and nothing else on stderr.
  const waiting = /^(memvoy: waiting for another memvoy process using this home \(\.store\/write\.lock\)…\n)?$/;
  expect(results.map((r) => [r.code, waiting.test(r.stderr)])).toEqual([
    [0, true],
    [0, true],
  ]);
  const said = results.map((r) => r.stdout).join("\n");
  expect(said.match(/rebuilt the archive with \d+ message/g)).toHaveLength(1);
  expect(said).toContain("another memvoy process rebuilt the archive meanwhile");
  const store = readdirSync(join(home, ".store"));
  expect(store.filter((n) => /^history\.db\.broken-[^.]+$/.test(n))).toHaveLength(1);
  expect(store.filter((n) => n.includes(".rebuilding"))).toEqual([]);
  expect((await cli(["doctor"], { home })).stdout).toContain("all good");
});

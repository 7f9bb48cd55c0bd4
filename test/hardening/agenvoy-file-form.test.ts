// A history.json in Agenvoy's form stays readable by Agenvoy after memvoy rewrites it: every sendAt is written as
// integer nanoseconds (Agenvoy decodes an int64 and fails on a string), and records keep what Agenvoy wrote beyond
// memvoy's fields (image parts, unknown fields). memvoy's own files keep RFC 3339 times. The form outlives the file: a
// file a reset deleted, or an empty list, is written again in it. Checked with a second process that reads the file as
// Agenvoy's Go decoder does.
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SCHEMA_VERSION } from "../../src/storage/sqlite/migrations/schema-version.ts";
import { cli, removeTempHomes, tempHome } from "../fixture/home.ts";
import { undoV010 } from "../fixture/old-schema.ts";

afterAll(removeTempHomes);

const writer = join(import.meta.dir, "../fixture/agenvoy-writer-main.ts");
const fileOf = (home: string) => join(home, "sessions", "s", "history.json");

/** Agenvoy, as another process decoding sendAt as an int64 (a file with any other sendAt reads as no list). */
function agenvoy(home: string, ...action: string[]): void {
  const r = Bun.spawnSync(["bun", writer, fileOf(home), ...action], {
    env: { ...process.env, AGENVOY_STRICT: "1" },
  });
  expect(r.exitCode).toBe(0);
}

async function run(home: string, ...args: string[]): Promise<string> {
  const r = await cli(args, { home });
  expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: "" });
  return r.stdout;
}

/** Each record's sendAt as its JSON token; throws unless it is a 19-digit integer (what an int64 decoder takes). */
function int64Times(home: string): string[] {
  const tokens: string[] = [];
  JSON.parse(readFileSync(fileOf(home), "utf8"), (k, v, ctx?: { source?: string }) => {
    if (k === "sendAt") tokens.push(typeof v === "number" ? (ctx?.source ?? "") : JSON.stringify(v));
    return v;
  });
  for (const t of tokens) if (!/^\d{19}$/.test(t)) throw new Error(`sendAt ${t} is no int64 of nanoseconds`);
  return tokens;
}

const records = (home: string) => JSON.parse(readFileSync(fileOf(home), "utf8")) as Record<string, unknown>[];
const contents = async (home: string) =>
  (JSON.parse(await run(home, "history", "s", "--json")) as { messages: { content: string }[] }).messages.map(
    (m) => m.content,
  );

const IMAGE = { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgoQUFBQ", detail: "auto" } };
const AGENVOY_FILE = `[{"role":"user","content":"where is the ferry schedule?","sendAt":1786000000123456789},${`{"role":"assistant","content":"on the harbour page","sendAt":1786000001123456789,"reasoning_content":"look it up","n":12345678901234567890},`}{"role":"user","content":[{"type":"text","text":"is this it?"},${JSON.stringify(IMAGE)}],"sendAt":1786000002123456789,"sender":"ana"}]`;

function agenvoyHome(): string {
  const home = tempHome();
  mkdirSync(join(home, "sessions", "s"), { recursive: true, mode: 0o700 });
  writeFileSync(fileOf(home), AGENVOY_FILE, { mode: 0o600 });
  return home;
}

test("memvoy's add to Agenvoy's file writes integer sendAt and keeps image parts: Agenvoy's next turn keeps every record", async () => {
  const home = agenvoyHome();
  await run(home, "add", "s", "--role", "assistant", "--content", "yes, the 9:15 one");
  const times = int64Times(home);
  expect(times.slice(0, 3)).toEqual(["1786000000123456789", "1786000001123456789", "1786000002123456789"]);
  expect(times).toHaveLength(4);
  const [, second, third] = records(home);
  expect(third!.content).toEqual([{ type: "text", text: "is this it?" }, IMAGE]);
  expect(third!.sender).toBe("ana");
  expect(readFileSync(fileOf(home), "utf8")).toContain('"n":12345678901234567890');
  expect(second!.reasoning_content).toBe("look it up");
  // The archive keeps the text.
  expect(await contents(home)).toEqual([
    "where is the ferry schedule?",
    "on the harbour page",
    "is this it?",
    "yes, the 9:15 one",
  ]);
  agenvoy(home, "turn", "thanks");
  expect(records(home).map((r) => r.role)).toEqual(["user", "assistant", "user", "assistant", "user"]);
  expect(await contents(home)).toEqual([
    "where is the ferry schedule?",
    "on the harbour page",
    "is this it?",
    "yes, the 9:15 one",
    "thanks",
  ]);
  // Read again (records without ids, as Agenvoy writes them back) and rewritten by the next add: still Agenvoy's form.
  await run(home, "add", "s", "--role", "assistant", "--content", "you are welcome");
  expect(int64Times(home)).toHaveLength(6);
  expect(records(home)[2]!.content).toEqual([{ type: "text", text: "is this it?" }, IMAGE]);
  expect(JSON.parse(await run(home, "doctor", "--json")).ok).toBe(true);
});

test("compaction of Agenvoy's file keeps integer sendAt; a file memvoy makes keeps RFC 3339", async () => {
  const home = agenvoyHome();
  writeFileSync(join(home, "config.toml"), "[limits]\nmax_history_bytes = 4096\n");
  const turns = Array.from({ length: 40 }, (_, i) =>
    JSON.stringify({
      role: i % 2 ? "assistant" : "user",
      content: `turn ${i} about the ferry timetable ${"·".repeat(60)}`,
    }),
  ).join("\n");
  const r = await cli(["add", "s"], { home, stdin: turns });
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
  expect(statSync(fileOf(home)).size).toBeLessThanOrEqual(4096);
  expect(int64Times(home).length).toBeGreaterThan(0);
  agenvoy(home, "turn", "and on Sunday?");
  expect(records(home).at(-2)!.content).toStartWith("turn 39 about the ferry timetable");
  expect(records(home)[0]!.content).not.toBe("where is the ferry schedule?"); // compacted

  const own = tempHome();
  await run(own, "add", "s", "--role", "user", "--content", "a new session");
  expect(readFileSync(fileOf(own), "utf8")).toMatch(/"sendAt":"\d{4}-\d\d-\d\dT[\d:.]+Z"/);
});

test("rm-message removes an image message from Agenvoy's file whole; the others keep their form", async () => {
  const home = agenvoyHome();
  const listed = JSON.parse(await run(home, "history", "s", "--json")) as { messages: { id: string }[] };
  await run(home, "rm-message", listed.messages[2]!.id);
  expect(int64Times(home)).toHaveLength(2);
  expect(records(home).map((r) => r.content)).toEqual(["where is the ferry schedule?", "on the harbour page"]);
  const sessionDir = join(home, "sessions", "s");
  for (const name of readdirSync(sessionDir))
    expect(readFileSync(join(sessionDir, name), "latin1")).not.toContain("iVBORw0KGgoQUFBQ");
  expect(readFileSync(join(home, ".store", "history.db"), "latin1")).not.toContain("is this it?");
});

test("doctor --repair rebuilds a corrupt Agenvoy file in Agenvoy's form", async () => {
  const home = agenvoyHome();
  await run(home, "history", "s");
  writeFileSync(fileOf(home), `${AGENVOY_FILE.slice(0, -1)},{"role":"user","content":"half`);
  const r = await cli(["doctor", "--repair"], { home });
  expect(r.code).toBe(0);
  expect(int64Times(home)).toHaveLength(3);
  agenvoy(home, "turn", "after the repair");
  expect(records(home)).toHaveLength(4);
  // A file whose text tells no form (garbage, cut before its first record, zeros from a crash) takes the form
  // the session remembers.
  await run(home, "history", "s");
  for (const bad of ["garbage", "[", "\0".repeat(64)]) {
    writeFileSync(fileOf(home), bad);
    expect((await cli(["doctor", "--repair"], { home })).code).toBe(0);
    expect(int64Times(home)).toHaveLength(4);
  }
});

test("a file from Agenvoy before sendAt (times in a header, no ids) is written with integer sendAt", async () => {
  const home = tempHome();
  mkdirSync(join(home, "sessions", "s"), { recursive: true, mode: 0o700 });
  const header = "---\n當前時間: 2026-08-01 09:30:00\n工作目錄: /srv\n---\n";
  const records = [
    { role: "user", content: `${header}when does the ferry leave?` },
    { role: "assistant", content: "at 9:15" },
  ];
  writeFileSync(fileOf(home), JSON.stringify(records), { mode: 0o600 });
  await run(home, "add", "s", "--role", "user", "--content", "and back?");
  expect(int64Times(home)).toHaveLength(3);
  agenvoy(home, "turn", "thanks");
  expect(await contents(home)).toEqual(["when does the ferry leave?", "at 9:15", "and back?", "thanks"]);
});

test("reset of Agenvoy's file, then an add: the new file is in Agenvoy's form, and Agenvoy's next turn keeps the add", async () => {
  const home = agenvoyHome();
  await run(home, "history", "s");
  await run(home, "reset", "s");
  await run(home, "add", "s", "--role", "user", "--content", "a fresh start");
  expect(int64Times(home)).toHaveLength(1);
  agenvoy(home, "turn", "and the return trip?");
  expect(records(home).map((r) => r.content)).toEqual(["a fresh start", "and the return trip?"]);
  expect(await contents(home)).toEqual(["a fresh start", "and the return trip?"]);
  // A reset that reads the file for the first time remembers its form too.
  const first = agenvoyHome();
  await run(first, "reset", "s");
  await run(first, "add", "s", "--role", "user", "--content", "a fresh start");
  expect(int64Times(first)).toHaveLength(1);
});

for (const how of ["empty", "delete"] as const)
  test(`Agenvoy ${how === "empty" ? "empties its list ([])" : "deletes the file (its reset)"}, then an add: Agenvoy's form`, async () => {
    const home = agenvoyHome();
    await run(home, "add", "s", "--role", "assistant", "--content", "yes, the 9:15 one");
    agenvoy(home, how);
    await run(home, "add", "s", "--role", "user", "--content", "a fresh start");
    expect(int64Times(home)).toHaveLength(1);
    agenvoy(home, "turn", "and the return trip?");
    expect(await contents(home)).toEqual(["a fresh start", "and the return trip?"]);
  });

test("a home from before the form was remembered is upgraded: its sessions learn it on the next read", async () => {
  const home = agenvoyHome();
  await run(home, "history", "s");
  const db = new Database(join(home, ".store", "history.db"));
  try {
    undoV010(db);
  } finally {
    db.close();
  }
  await run(home, "reset", "s");
  await run(home, "add", "s", "--role", "user", "--content", "a fresh start");
  expect(int64Times(home)).toHaveLength(1);
  const upgraded = new Database(join(home, ".store", "history.db"), { readonly: true });
  try {
    expect(upgraded.query("PRAGMA user_version").get()).toEqual({ user_version: SCHEMA_VERSION });
    expect(upgraded.query("SELECT history_style AS style FROM sessions WHERE id = 's'").get()).toEqual({ style: "ns" });
  } finally {
    upgraded.close();
  }
});

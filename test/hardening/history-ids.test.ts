// A history.json whose ids are not its own: one id twice (a hand edit, a sync conflict) or ids of another
// session's messages (a session folder copied with cp -r). Every command refuses it with exit code 2 and one
// line naming the file and the ids, nothing disappears, and doctor --repair makes it usable again.
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

const ID = "01M9300000000000000000000A";
const fileOf = (home: string, s: string) => join(home, "sessions", s, "history.json");
const records = (home: string, s: string) =>
  JSON.parse(readFileSync(fileOf(home, s), "utf8")) as { id: string; content: string }[];

test("an id twice in history.json: exit 2 naming the file and the id; doctor --repair keeps the first", async () => {
  const home = tempHome();
  mkdirSync(join(home, "sessions", "x"), { recursive: true });
  const twice = [
    { role: "user", content: "first copy", id: ID },
    { role: "assistant", content: "second copy", id: ID },
    { role: "user", content: "other", id: "01M9300000000000000000000B" },
  ];
  writeFileSync(fileOf(home, "x"), JSON.stringify(twice));
  for (const args of [
    ["history", "x"],
    ["add", "x", "--role", "user", "--content", "new"],
    ["reset", "x"],
  ]) {
    const r = await cli(args, { home });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain(`${fileOf(home, "x")} is corrupt (record 2: id ${ID} is record 1's too)`);
    expect(r.stderr).not.toContain("UNIQUE");
  }
  const doctor = await cli(["doctor"], { home });
  expect(doctor.code).toBe(1);
  expect(doctor.stdout).toContain(`record 2: id ${ID}`);
  const repair = await cli(["doctor", "--repair"], { home });
  expect(repair.code).toBe(0);
  expect(repair.stdout).toContain(`dropped record 2 (id ${ID} is record 1's too)`);
  expect(records(home, "x").map((r) => r.content)).toEqual(["first copy", "other"]);
  expect((await cli(["add", "x", "--role", "assistant", "--content", "after"], { home })).code).toBe(0);
  const history = await cli(["history", "x", "--all", "--json"], { home });
  expect(JSON.parse(history.stdout).messages.map((m: { content: string }) => m.content)).toEqual([
    "first copy",
    "other",
    "after",
  ]);
  expect((await cli(["doctor"], { home })).code).toBe(0);
});

test("a copied session folder: the copy is refused naming the other session's ids, kept, and renewed by doctor", async () => {
  const home = tempHome();
  for (const [role, content] of [
    ["user", "hello A"],
    ["assistant", "hi"],
  ])
    expect((await cli(["add", "a", "--role", role!, "--content", content!], { home })).code).toBe(0);
  const ids = records(home, "a").map((r) => r.id);
  cpSync(join(home, "sessions", "a"), join(home, "sessions", "b"), { recursive: true });
  for (const args of [
    ["history", "b"],
    ["add", "b", "--role", "user", "--content", "b new"],
  ]) {
    const r = await cli(args, { home });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${fileOf(home, "b")} is corrupt (records 1, 2: ids of session "a"'s messages`);
    for (const id of ids) expect(r.stderr).toContain(id);
  }
  // Nothing of the copy disappeared on the refused write (nor on the writes that follow it), and a is untouched.
  expect((await cli(["add", "c", "--role", "user", "--content", "elsewhere"], { home })).code).toBe(0);
  expect(records(home, "b").map((r) => r.id)).toEqual(ids);
  expect(records(home, "a").map((r) => r.id)).toEqual(ids);
  const repair = await cli(["doctor", "--repair"], { home });
  expect(repair.code).toBe(0);
  expect(repair.stdout).toContain('gave 2 message(s) copied from session "a" new ids');
  const b = records(home, "b");
  expect(b.map((r) => r.content)).toEqual(["hello A", "hi"]);
  expect(b.some((r) => ids.includes(r.id))).toBe(false);
  expect((await cli(["add", "b", "--role", "user", "--content", "b new"], { home })).code).toBe(0);
  const history = await cli(["history", "b", "--json"], { home });
  expect(JSON.parse(history.stdout).messages.map((m: { content: string }) => m.content)).toEqual([
    "hello A",
    "hi",
    "b new",
  ]);
  expect(records(home, "a").map((r) => r.id)).toEqual(ids);
  expect((await cli(["doctor"], { home })).code).toBe(0);
});

test("rm-message on such a file refuses and changes nothing; a removal a crash left pending never blocks doctor", async () => {
  const home = tempHome();
  const [first, second] = [
    (await cli(["add", "s", "--role", "user", "--content", "one"], { home })).stdout.trim(),
    (await cli(["add", "s", "--role", "assistant", "--content", "two"], { home })).stdout.trim(),
  ];
  const twice = [...records(home, "s"), records(home, "s")[0]!];
  writeFileSync(fileOf(home, "s"), JSON.stringify(twice));
  const refused = await cli(["rm-message", second!], { home });
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain(`record 3: id ${first} is record 1's too`);
  const all = await cli(["history", "s", "--all", "--json"], { home });
  expect(JSON.parse(all.stdout).messages).toHaveLength(2);
  // A removal begun before the file went bad (its intent recorded, then a crash) is finished by the next open.
  const db = new Database(join(home, ".store", "history.db"));
  db.run("INSERT INTO pending_removals (message_id, session_id, created_at) VALUES (?, 's', 0)", [second!]);
  db.close();
  const doctor = await cli(["doctor"], { home });
  expect(doctor.code).toBe(1);
  expect(doctor.stdout).toContain("is record 1's too");
  expect((await cli(["doctor", "--repair"], { home })).code).toBe(0);
  expect(records(home, "s").map((r) => r.content)).toEqual(["one"]);
});

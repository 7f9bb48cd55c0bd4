// The context window follows what history.json's other writer chose: Agenvoy trimming its oldest messages, pruning
// exchanges, emptying its list or deleting the file on a reset (each done here by a second process, as Agenvoy writes: the whole list,
// no ids, through a rename) takes those messages out of `history`, `context` and the file memvoy writes next, while
// the archive keeps every one. A write memvoy made after the other program loaded its list, and a writer of memvoy's
// killed before its rename, are still put back.
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { copyFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

const writer = join(import.meta.dir, "../fixture/agenvoy-writer-main.ts");

/** Agenvoy, as another process, rewriting the session's history.json (see agenvoy-writer-main.ts). */
function agenvoy(home: string, ...action: string[]): void {
  const r = Bun.spawnSync(["bun", writer, join(home, "sessions", "s", "history.json"), ...action]);
  expect(r.exitCode).toBe(0);
}

async function run(home: string, ...args: string[]): Promise<string> {
  const r = await cli(args, { home });
  expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: "" });
  return r.stdout;
}

const contents = async (home: string, ...args: string[]) =>
  (JSON.parse(await run(home, "history", "s", "--json", ...args)) as { messages: { content: string }[] }).messages.map(
    (m) => m.content,
  );
const contextContents = async (home: string) =>
  (JSON.parse(await run(home, "context", "s", "--json")) as { messages: { content: string; kind: string }[] }).messages
    .filter((m) => m.kind === "history")
    .map((m) => m.content);
const fileContents = (home: string) => {
  const file = join(home, "sessions", "s", "history.json");
  return existsSync(file)
    ? (JSON.parse(readFileSync(file, "utf8")) as { content: string }[]).map((r) => r.content)
    : null;
};
const recentRows = (home: string) => {
  const db = new Database(join(home, ".store", "history.db"), { readonly: true });
  try {
    return (
      db.query("SELECT content FROM messages WHERE session_id = 's' AND recent = 1 ORDER BY seq").all() as {
        content: string;
      }[]
    ).map((r) => r.content);
  } finally {
    db.close();
  }
};

const six = ["q1", "a1", "q2", "a2", "q3", "a3"];

async function seeded(): Promise<string> {
  const home = tempHome();
  const jsonl = six.map((c, i) => JSON.stringify({ role: i % 2 ? "assistant" : "user", content: c })).join("\n");
  const r = await cli(["add", "s"], { home, stdin: jsonl });
  expect(r.code).toBe(0);
  return home;
}

test("Agenvoy trims its oldest messages: the window and the next file follow it, the archive keeps them", async () => {
  const home = await seeded();
  agenvoy(home, "keep", "2");
  expect(await contents(home)).toEqual(["q3", "a3"]);
  expect(await contextContents(home)).toEqual(["q3", "a3"]);
  expect(await contents(home, "--all")).toEqual(six);
  expect(recentRows(home)).toEqual(["q3", "a3"]);
  await run(home, "add", "s", "--role", "user", "--content", "q4");
  expect(fileContents(home)).toEqual(["q3", "a3", "q4"]);
  expect(await contents(home, "--all")).toEqual([...six, "q4"]);
  const search = JSON.parse(await run(home, "search", "q1", "--session", "s", "--json")).hits;
  expect(search.map((h: { content: string; source: string }) => [h.content, h.source])).toEqual([["q1", "archive"]]);
  expect(JSON.parse(await run(home, "doctor", "--json")).ok).toBe(true);
});

test("Agenvoy trims its list and a write adopts it first: the add's file holds what Agenvoy kept, then the message", async () => {
  const home = await seeded();
  agenvoy(home, "keep", "4");
  agenvoy(home, "turn", "from agenvoy");
  await run(home, "add", "s", "--role", "assistant", "--content", "memvoy's answer");
  expect(fileContents(home)).toEqual(["q2", "a2", "q3", "a3", "from agenvoy", "memvoy's answer"]);
  expect(await contents(home)).toEqual(["q2", "a2", "q3", "a3", "from agenvoy", "memvoy's answer"]);
  expect(await contents(home, "--all")).toEqual([...six, "from agenvoy", "memvoy's answer"]);
});

test("Agenvoy's /memory compact prunes exchanges between others: they leave the window, a later write keeps it so", async () => {
  const home = await seeded();
  agenvoy(home, "drop", "2,3");
  expect(await contents(home)).toEqual(["q1", "a1", "q3", "a3"]);
  expect(await contextContents(home)).toEqual(["q1", "a1", "q3", "a3"]);
  expect(recentRows(home)).toEqual(["q1", "a1", "q3", "a3"]);
  expect((await run(home, "history", "s", "--all")).replace(/^\[[^\]]*\] /gm, "").split("\n")).toEqual([
    "q1",
    "a1",
    "──── history.json above · archive below ────",
    "q2",
    "a2",
    "──── archive above · history.json below ────",
    "q3",
    "a3",
    "",
  ]);
  await run(home, "add", "s", "--role", "user", "--content", "q4");
  expect(fileContents(home)).toEqual(["q1", "a1", "q3", "a3", "q4"]);
  expect(await contents(home, "--all")).toEqual([...six, "q4"]);
  const hits = JSON.parse(await run(home, "search", "q2", "--session", "s", "--json")).hits;
  expect(hits.map((h: { content: string; source: string }) => [h.content, h.source])).toEqual([["q2", "archive"]]);
  expect(JSON.parse(await run(home, "doctor", "--json")).ok).toBe(true);
});

for (const how of ["empty", "delete"] as const)
  test(`Agenvoy's reset (${how === "empty" ? "an emptied list" : "the file deleted"}): the window is empty, then holds only the new turns`, async () => {
    const home = await seeded();
    agenvoy(home, how);
    expect(await contents(home)).toEqual([]);
    expect(await contextContents(home)).toEqual([]);
    expect(fileContents(home)).toEqual(how === "empty" ? [] : null);
    agenvoy(home, "turn", "a fresh start");
    await run(home, "add", "s", "--role", "assistant", "--content", "hello again");
    expect(fileContents(home)).toEqual(["a fresh start", "hello again"]);
    expect(await contents(home)).toEqual(["a fresh start", "hello again"]);
    expect(await contents(home, "--all")).toEqual([...six, "a fresh start", "hello again"]);
    expect(JSON.parse(await run(home, "doctor", "--json")).ok).toBe(true);
  });

test("Agenvoy caught rewriting the file in place (truncated, no text yet): nothing leaves the window", async () => {
  const home = await seeded();
  const file = join(home, "sessions", "s", "history.json");
  const full = join(home, "full.json");
  agenvoy(home, "keep", "6"); // Agenvoy's own form of the list
  copyFileSync(file, full);
  writeFileSync(file, ""); // its write has truncated the file and not written yet
  expect(await contents(home)).toEqual(six);
  copyFileSync(full, file); // its write done
  expect(await contents(home)).toEqual(six);
  expect(fileContents(home)).toEqual(six);
  expect(await contents(home, "--all")).toEqual(six);
});

test("a list Agenvoy loaded before memvoy's add and writes back with its turn: memvoy's message stays in the window", async () => {
  const home = await seeded();
  const loaded = join(home, "loaded.json");
  copyFileSync(join(home, "sessions", "s", "history.json"), loaded); // Agenvoy's turn begins: it loads its list
  await run(home, "add", "s", "--role", "user", "--content", "memvoy's note");
  agenvoy(home, "turn", "agenvoy's turn", loaded);
  expect(fileContents(home)).toEqual([...six, "agenvoy's turn"]);
  expect(await contents(home)).toEqual([...six, "memvoy's note", "agenvoy's turn"]);
  expect(fileContents(home)).toEqual([...six, "memvoy's note", "agenvoy's turn"]);
});

test("a writer killed before its rename after Agenvoy emptied the list: its message is put back, not dropped", async () => {
  const home = await seeded();
  agenvoy(home, "empty");
  expect(await contents(home)).toEqual([]); // adopted: the six left the window
  const killed = await cli(["add", "s", "--role", "user", "--content", "unrenamed"], {
    home,
    env: { MEMVOY_TEST_FAULT: "after-archive-commit" },
  });
  expect(killed.code).not.toBe(0);
  expect(fileContents(home)).toEqual([]);
  await run(home, "add", "other", "--role", "user", "--content", "another session");
  expect(fileContents(home)).toEqual(["unrenamed"]);
  expect(await contents(home)).toEqual(["unrenamed"]);
});

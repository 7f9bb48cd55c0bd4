// A session's history.json changed by another program (Agenvoy appends records without ids, integer ns times)
// after memvoy adopted the session: the next read of that session (history, context, search --session) adopts
// the records first. Every memvoy write leaves the file's stamp matching, so a read after it parses nothing.
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { historyStamp } from "../../src/storage/history/history-file.ts";
import { importJsonlFiles } from "../../src/import/import-jsonl.ts";
import { stampAgrees } from "../fixture/history-stamp.ts";
import { cli, openTemp, removeTempHomes, tempHome } from "../fixture/home.ts";
import { config } from "../fixture/semantic-home.ts";

afterAll(removeTempHomes);

const historyFile = (home: string, session: string) => join(home, "sessions", session, "history.json");

/** Append one record as Agenvoy writes it (no id, sendAt in integer ns): via a temp file and a rename, or in place. */
function agenvoyAppend(home: string, session: string, content: string, how: "rename" | "in place"): void {
  const file = historyFile(home, session);
  const text = readFileSync(file, "utf8").trimEnd();
  const sendAt = BigInt(Date.now()) * 1_000_000n + 123_456n;
  const record = `{"role":"user","content":${JSON.stringify(content)},"sendAt":${sendAt}}`;
  const next = `${text.slice(0, -1).trimEnd()},${record}]`;
  if (how === "in place") writeFileSync(file, next);
  else {
    writeFileSync(`${file}.agenvoy`, next);
    renameSync(`${file}.agenvoy`, file);
  }
}

describe("records another program appends to an adopted session", () => {
  for (const how of ["rename", "in place"] as const) {
    test(`are read by history, context and search --session (written ${how})`, async () => {
      const home = tempHome();
      const run = async (args: string[]) => {
        const r = await cli(args, { home });
        expect(r.stderr).toBe("");
        expect(r.code).toBe(0);
        return r.stdout;
      };
      await run(["add", "s1", "--role", "user", "--content", "hello one"]);
      await run(["add", "s1", "--role", "assistant", "--content", "reply one"]);

      agenvoyAppend(home, "s1", "foreign giraffe", how);
      expect(await run(["history", "s1"])).toContain("foreign giraffe");

      agenvoyAppend(home, "s1", "foreign okapi", how);
      expect(await run(["context", "s1"])).toContain("foreign okapi");

      agenvoyAppend(home, "s1", "foreign pangolin", how);
      const hits = JSON.parse(await run(["search", "pangolin", "--session", "s1", "--json"])).hits;
      expect(hits.map((h: { content: string }) => h.content)).toEqual(["foreign pangolin"]);

      // Adopted once: the file now holds them in memvoy's form, each once, and the archive agrees.
      const file = JSON.parse(readFileSync(historyFile(home, "s1"), "utf8")) as { id: string; content: string }[];
      expect(file.map((r) => r.content)).toEqual([
        "hello one",
        "reply one",
        "foreign giraffe",
        "foreign okapi",
        "foreign pangolin",
      ]);
      expect(file.every((r) => r.id.length === 26)).toBe(true);
      const sessions = await run(["sessions", "--json"]);
      expect(JSON.parse(sessions)[0].messages).toBe(5);
      expect(stampAgrees(home, "s1")).toBe(true);
    });
  }

  test("count in the session list (sessions, and the library's list) without a read of the session first", async () => {
    const home = tempHome();
    const run = async (args: string[]) => {
      const r = await cli(args, { home });
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      return r.stdout;
    };
    await run(["add", "s1", "--role", "user", "--content", "hello one"]);
    await run(["add", "s2", "--role", "user", "--content", "hello two"]);
    const row = async (id: string) =>
      (JSON.parse(await run(["sessions", "--json"])) as { id: string; messages: number; lastActivity: string }[]).find(
        (s) => s.id === id,
      )!;
    const before = await row("s1");
    expect(before.messages).toBe(1);
    agenvoyAppend(home, "s1", "foreign giraffe", "rename");
    const after = await row("s1");
    expect(after.messages).toBe(2);
    expect(after.lastActivity > before.lastActivity).toBe(true);
    expect((await row("s2")).messages).toBe(1);
    expect(await run(["history", "s1"])).toContain("foreign giraffe");
  });

  test("Agenvoy's rewrite of the whole file (its records: no ids, ns times) adds only its new record", async () => {
    const home = tempHome();
    const run = async (args: string[]) => {
      const r = await cli(args, { home });
      expect({ stderr: r.stderr, code: r.code }).toEqual({ stderr: "", code: 0 });
      return r.stdout;
    };
    await run(["add", "s1", "--role", "user", "--content", "hello one"]);
    await run(["add", "s1", "--role", "assistant", "--content", "reply one", "--sender", "bot"]);
    // Agenvoy keeps role, content, sendAt (integer ns) and sender, and writes its whole list back on each append.
    const agenvoyRewrite = (content: string) => {
      // memvoy writes a file in Agenvoy's form back in it: integer times are read as text (past a JS number).
      const text = readFileSync(historyFile(home, "s1"), "utf8").replace(/"sendAt":(\d+)/g, '"sendAt":"$1"');
      const kept = (JSON.parse(text) as Record<string, string>[]).map((r) => {
        const sendAt = /^\d+$/.test(r.sendAt!)
          ? BigInt(r.sendAt!)
          : BigInt(Date.parse(r.sendAt!.slice(0, 19) + "Z")) * 1_000_000n + BigInt(r.sendAt!.slice(20, 29));
        return `{"role":${JSON.stringify(r.role)},"content":${JSON.stringify(r.content)},"sendAt":${sendAt}${
          r.sender ? `,"sender":${JSON.stringify(r.sender)}` : ""
        }}`;
      });
      kept.push(`{"role":"user","content":${JSON.stringify(content)},"sendAt":${BigInt(Date.now()) * 1_000_000n}}`);
      writeFileSync(historyFile(home, "s1"), `[${kept.join(",")}]`);
    };
    agenvoyRewrite("foreign giraffe");
    // The rewritten records are the archive's rows without their ids: only the new one is missing from the archive.
    const doctor = await cli(["doctor", "--json"], { home });
    expect(JSON.parse(doctor.stdout).findings).toEqual([
      { session: "s1", problem: "history.json holds 1 message(s) the archive lacks" },
    ]);
    await run(["history", "s1"]);
    agenvoyRewrite("foreign okapi");
    const all = JSON.parse(await run(["history", "s1", "--all", "--json"])).messages;
    expect(all.map((m: { content: string; sender?: string }) => [m.content, m.sender ?? null])).toEqual([
      ["hello one", null],
      ["reply one", "bot"],
      ["foreign giraffe", null],
      ["foreign okapi", null],
    ]);
    const file = JSON.parse(readFileSync(historyFile(home, "s1"), "utf8")) as { id: string }[];
    expect(file.map((r) => r.id)).toEqual(all.map((m: { id: string }) => m.id));
    expect(stampAgrees(home, "s1")).toBe(true);
  });

  test("a file half written by the other program leaves reads on the archive; the next read adopts it", () => {
    const { home, api } = openTemp();
    api.add("s1", { role: "user", content: "hello one" });
    const file = historyFile(home, "s1");
    const whole = readFileSync(file, "utf8");
    writeFileSync(file, whole.slice(0, 40));
    expect(api.history("s1").map((m) => m.content)).toEqual(["hello one"]);
    writeFileSync(file, whole);
    agenvoyAppend(home, "s1", "written at last", "in place");
    expect(api.history("s1").map((m) => m.content)).toEqual(["hello one", "written at last"]);
    api.close();
  });
});

describe("after each of memvoy's own writes a read of the session reconciles nothing", () => {
  test("add, compaction, rm-message, reset, import, adoption, a home without stamps", async () => {
    const { home, api } = openTemp({ config: config({ limits: { max_history_bytes: 4096 } }) });
    api.add("s1", { role: "user", content: "first" });
    expect(stampAgrees(home, "s1")).toBe(true);
    for (let i = 0; i < 40; i++)
      api.add("s1", { role: i % 2 ? "assistant" : "user", content: `turn ${i} ${"x".repeat(200)}` });
    expect(api.history("s1", { all: true }).length).toBe(41);
    expect(stampAgrees(home, "s1")).toBe(true); // compacted along the way

    await api.rmMessage(api.history("s1").at(-1)!.id);
    expect(stampAgrees(home, "s1")).toBe(true);

    const jsonl = join(tempHome(), "in.jsonl");
    writeFileSync(
      jsonl,
      [
        JSON.stringify({ type: "session", id: "s2" }),
        JSON.stringify({
          type: "message",
          id: "01KJMA0MG8VAKDWNJJK26GKTH6",
          session: "s2",
          role: "user",
          content: "imported",
          sendAt: new Date().toISOString(),
        }),
      ].join("\n") + "\n",
    );
    await importJsonlFiles(api, [jsonl]);
    expect(api.history("s2").map((m) => m.content)).toEqual(["imported"]);
    expect(stampAgrees(home, "s2")).toBe(true);

    api.reset("s2");
    api.add("s2", { role: "user", content: "after reset" });
    expect(stampAgrees(home, "s2")).toBe(true);

    // A session another program made: adopted on first encounter, then taken as it is.
    const foreign = historyFile(home, "s3");
    mkdirSync(join(home, "sessions", "s3"));
    writeFileSync(foreign, `[{"role":"user","content":"from agenvoy","sendAt":1767225600000000000}]`);
    expect(api.history("s3").map((m) => m.content)).toEqual(["from agenvoy"]);
    expect(stampAgrees(home, "s3")).toBe(true);
    api.close();

    // A home made before stamps were kept: the first read records the stamp, without rewriting the file.
    const db = new Database(join(home, ".store", "history.db"));
    db.run("UPDATE sessions SET history_stamp = NULL");
    db.close();
    const inode = historyStamp(historyFile(home, "s1"))!.split(":")[0];
    const again = openTemp({ home, config: config({ limits: { max_history_bytes: 4096 } }) }).api;
    expect((await again.search({ query: "turn", session: "s1" })).hits.length).toBeGreaterThan(0);
    expect(stampAgrees(home, "s1")).toBe(true);
    expect(historyStamp(historyFile(home, "s1"))!.split(":")[0]).toBe(inode);
    again.close();
  });

  test("doctor --repair (a record dropped by hand, a corrupt file) and a writer killed before its rename", async () => {
    const home = tempHome();
    const run = (args: string[], env?: Record<string, string>) => cli(args, { home, env });
    for (const c of ["one", "two", "three"])
      expect((await run(["add", "s1", "--role", "user", "--content", c])).code).toBe(0);
    const file = historyFile(home, "s1");
    const records = JSON.parse(readFileSync(file, "utf8")) as unknown[];
    writeFileSync(file, JSON.stringify(records.slice(0, 2)));
    expect((await run(["doctor", "--repair"])).code).toBe(0);
    expect(stampAgrees(home, "s1")).toBe(true);

    writeFileSync(file, "[{oops");
    await run(["doctor", "--repair"]);
    expect(JSON.parse(readFileSync(file, "utf8"))).toHaveLength(3);
    expect(stampAgrees(home, "s1")).toBe(true);

    const killed = await run(["add", "s1", "--role", "user", "--content", "four"], {
      MEMVOY_TEST_FAULT: "after-archive-commit",
    });
    expect(killed.code).not.toBe(0);
    expect((await run(["history", "s1"])).stdout).toContain("four");
    expect(stampAgrees(home, "s1")).toBe(true);
  });
});

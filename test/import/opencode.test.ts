import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openTemp, removeTempHomes, tempHome } from "../fixture/home.ts";
import { writeOpencodeData, writeOpencodeLegacy } from "../fixture/import/opencode.ts";
import { importWith, messagesOf, sessionInfo } from "./support.ts";

afterAll(removeTempHomes);

function db2(dir: string, fn: (d: Database) => void): void {
  const d = new Database(join(dir, "opencode.db"));
  try {
    fn(d);
  } finally {
    d.close();
  }
}

describe("import opencode", () => {
  test("the database (read-only) and the legacy JSON storage: text parts only, titles, parents, projects", async () => {
    const xdg = tempHome("oc-src-");
    const dir = writeOpencodeData(xdg);
    const before = Bun.file(join(dir, "opencode.db")).size;
    const { api } = openTemp();
    const r = await importWith(api, "opencode", [], { env: { XDG_DATA_HOME: xdg } });
    expect(r.files).toMatchObject({ found: 2, read: 2, failed: 0 });
    expect(r.skippedCount).toBe(1);
    expect(r.skipped[0]).toMatchObject({ reason: "part prt_bad: data is not a JSON object" });
    expect(r.skipped[0]!.file).toEndWith("opencode.db");
    expect(messagesOf(api, "oc-ses_main01")).toEqual([
      ["user", "the webpack build takes 4 minutes", "2026-09-01T14:00:01.000000000Z"],
      ["assistant", "The terser plugin runs twice.", "2026-09-01T14:00:03.000000000Z"],
      ["user", "remove the second one", "2026-09-01T14:00:30.000000000Z"],
      ["assistant", "Removed; the build takes 90 s.", "2026-09-01T14:00:32.000000000Z"],
    ]);
    expect(sessionInfo(api, "oc-ses_main01")).toMatchObject({
      source: "opencode",
      title: "Speed up the build",
      project: "/home/dev/web",
    });
    expect(messagesOf(api, "oc-ses_child01")).toEqual([
      ["user", "find slow plugins", "2026-09-01T14:00:05.000000000Z"],
      ["assistant", "terser", "2026-09-01T14:00:09.000000000Z"],
    ]);
    expect(sessionInfo(api, "oc-ses_child01")).toMatchObject({
      parent: "oc-ses_main01",
      messages: 2,
      title: "Find slow plugins (@general subagent)",
      project: "/home/dev/web",
    });
    expect(messagesOf(api, "oc-ses_legacy1")).toEqual([
      ["user", "can this run on Bun?", "2025-11-05T09:00:01.000000000Z"],
      ["assistant", "Yes; only the sqlite driver changes.", "2025-11-05T09:00:04.000000000Z"],
    ]);
    expect(sessionInfo(api, "oc-ses_legacy1")!.title).toBe("Port the CLI to Bun");
    // Nothing was written to opencode's database.
    expect(Bun.file(join(dir, "opencode.db")).size).toBe(before);
    const again = await importWith(api, "opencode", [], { env: { XDG_DATA_HOME: xdg } });
    expect(again.messages.added).toBe(0);
    // A new message is picked up (the database changed).
    const db = new Database(join(dir, "opencode.db"));
    const at = Date.UTC(2026, 8, 1, 15, 0, 0);
    db.run("INSERT INTO message VALUES (?, ?, ?, ?, ?)", [
      "msg_006",
      "ses_main01",
      at,
      at,
      JSON.stringify({ role: "user", time: { created: at } }),
    ]);
    db.run("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", [
      "prt_006",
      "msg_006",
      "ses_main01",
      at,
      at,
      JSON.stringify({ type: "text", text: "thanks" }),
    ]);
    db.close();
    // An answer still being written (no completion time) waits; once completed it is picked up.
    db2(dir, (d) => {
      d.run("INSERT INTO message VALUES (?, ?, ?, ?, ?)", [
        "msg_007",
        "ses_main01",
        at + 1000,
        at + 1000,
        JSON.stringify({ role: "assistant", time: { created: at + 1000 } }),
      ]);
      d.run("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", [
        "prt_007",
        "msg_007",
        "ses_main01",
        at + 1000,
        at + 1000,
        JSON.stringify({ type: "text", text: "You're wel" }),
      ]);
    });
    const inc = await importWith(api, "opencode", [], { env: { XDG_DATA_HOME: xdg } });
    expect(inc.messages).toMatchObject({ added: 1 });
    db2(dir, (d) => {
      d.run("UPDATE part SET data = ?, time_updated = ? WHERE id = 'prt_007'", [
        JSON.stringify({ type: "text", text: "You're welcome." }),
        at + 3000,
      ]);
      d.run("UPDATE message SET data = ?, time_updated = ? WHERE id = 'msg_007'", [
        JSON.stringify({ role: "assistant", time: { created: at + 1000, completed: at + 3000 } }),
        at + 3000,
      ]);
    });
    const done = await importWith(api, "opencode", [], { env: { XDG_DATA_HOME: xdg } });
    expect(done.messages.added).toBe(1);
    expect(
      messagesOf(api, "oc-ses_main01")
        .slice(-2)
        .map((m) => m[1]),
    ).toEqual(["thanks", "You're welcome."]);
    api.close();
  });

  test("the placeholder title opencode gives an unnamed session is not a title: the first prompt is, then and later", async () => {
    const dir = writeOpencodeData(tempHome("oc-src-"));
    const T = Date.UTC(2026, 8, 2, 9, 0, 0);
    const add = (d: Database, id: string, session: string, role: string, at: number, text: string) => {
      const data = { role, time: { created: at, completed: at + 100 } };
      d.query("INSERT INTO message VALUES (?, ?, ?, ?, ?)").run(id, session, at, at, JSON.stringify(data));
      d.query("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)").run(
        `prt_${id}`,
        id,
        session,
        at,
        at,
        JSON.stringify({ type: "text", text }),
      );
    };
    const session = (d: Database, id: string, title: string, at: number, parent: string | null = null) =>
      d
        .query("INSERT INTO session VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
        .run(id, "prj_1", parent, "quiet-lake", "/home/dev/web", title, "1.2.0", at, at);
    db2(dir, (d) => {
      session(d, "ses_untitled", `New session - ${new Date(T).toISOString()}`, T);
      add(d, "msg_201", "ses_untitled", "user", T + 1_000, "why is the dev server slow to start?");
      add(d, "msg_202", "ses_untitled", "assistant", T + 200_000, "It type-checks on start.");
      session(d, "ses_old_style", `New Session - ${new Date(T).toISOString()}`, T + 500);
      add(d, "msg_301", "ses_old_style", "user", T + 1_500, "rename the package");
    });
    const { api } = openTemp();
    await importWith(api, "opencode", [dir]);
    expect(sessionInfo(api, "oc-ses_untitled")?.title).toBe("why is the dev server slow to start?");
    expect(sessionInfo(api, "oc-ses_old_style")?.title).toBe("rename the package");
    // A later pass reads only the new messages: the session keeps its first prompt as title; a child session
    // created since takes its own first prompt.
    db2(dir, (d) => {
      add(d, "msg_203", "ses_untitled", "user", T + 600_000, "turn that off in dev");
      session(d, "ses_child02", `Child session - ${new Date(T + 601_000).toISOString()}`, T + 601_000, "ses_untitled");
      add(d, "msg_401", "ses_child02", "user", T + 602_000, "list the tsconfig files");
    });
    const r = await importWith(api, "opencode", [dir]);
    expect(r.messages.added).toBe(2);
    expect(sessionInfo(api, "oc-ses_untitled")?.title).toBe("why is the dev server slow to start?");
    expect(sessionInfo(api, "oc-ses_child02")).toMatchObject({
      title: "list the tsconfig files",
      parent: "oc-ses_untitled",
    });
    api.close();
  });

  test("a session opencode names or renames after its last message takes the title at the next pass", async () => {
    const dir = writeOpencodeData(tempHome("oc-src-"));
    const T = Date.UTC(2026, 8, 2, 9, 0, 0);
    const add = (d: Database, id: string, session: string, role: string, at: number, text: string) => {
      const data = { role, time: { created: at, completed: at + 100 } };
      d.query("INSERT INTO message VALUES (?, ?, ?, ?, ?)").run(id, session, at, at, JSON.stringify(data));
      d.query("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)").run(
        `prt_${id}`,
        id,
        session,
        at,
        at,
        JSON.stringify({ type: "text", text }),
      );
    };
    db2(dir, (d) => {
      d.query("INSERT INTO session VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)").run(
        "ses_later",
        "prj_1",
        null,
        "quiet-lake",
        "/home/dev/web",
        `New session - ${new Date(T).toISOString()}`,
        "1.2.0",
        T,
        T,
      );
      add(d, "msg_501", "ses_later", "user", T + 1_000, "why is the dev server slow to start?");
      add(d, "msg_502", "ses_later", "assistant", T + 9_000, "It type-checks on start.");
    });
    const { api } = openTemp();
    await importWith(api, "opencode", [dir]);
    expect(sessionInfo(api, "oc-ses_later")?.title).toBe("why is the dev server slow to start?");
    // Its title comes later (opencode's title agent, or the person renames it), with no new message of its own.
    db2(dir, (d) => {
      d.query("UPDATE session SET title = ?, time_updated = ? WHERE id = ?").run(
        "Slow dev server start",
        T + 90_000,
        "ses_later",
      );
    });
    await importWith(api, "opencode", [dir]);
    expect(sessionInfo(api, "oc-ses_later")?.title).toBe("Slow dev server start");
    // The person works in another session, then renames this one.
    db2(dir, (d) => add(d, "msg_601", "ses_main01", "user", T + 300_000, "and the CSS build?"));
    await importWith(api, "opencode", [dir]);
    db2(dir, (d) => {
      d.query("UPDATE session SET title = ?, time_updated = ? WHERE id = ?").run(
        "Dev server: skip type-check",
        T + 400_000,
        "ses_later",
      );
    });
    const r = await importWith(api, "opencode", [dir]);
    expect(r.messages.added).toBe(0);
    expect(sessionInfo(api, "oc-ses_later")?.title).toBe("Dev server: skip type-check");
    api.close();
  });

  test("turns opencode deleted (an /undo, then a new prompt) are removed at the next pass; other sessions keep theirs", async () => {
    const dir = writeOpencodeData(tempHome("oc-src-"));
    const T = Date.UTC(2026, 8, 3, 9, 0, 0);
    const add = (d: Database, id: string, at: number, role: string, text: string) => {
      const data = { role, sessionID: "ses_undo", time: { created: at, completed: at + 100 } };
      d.query("INSERT INTO message VALUES (?, ?, ?, ?, ?)").run(id, "ses_undo", at, at, JSON.stringify(data));
      d.query("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)").run(
        `prt_${id}`,
        id,
        "ses_undo",
        at,
        at,
        JSON.stringify({ type: "text", text }),
      );
    };
    db2(dir, (d) => {
      d.query("INSERT INTO session VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)").run(
        "ses_undo",
        "prj_1",
        null,
        "bold-hare",
        "/home/dev/web",
        "Bundle size",
        "1.2.0",
        T,
        T,
      );
      add(d, "msg_701", T + 1_000, "user", "why is the bundle 2 MB?");
      add(d, "msg_702", T + 5_000, "assistant", "moment.js with every locale.");
      add(d, "msg_703", T + 10_000, "user", "replace it with date-fns");
      add(d, "msg_704", T + 15_000, "assistant", "Replaced; 400 kB saved.");
    });
    const { api } = openTemp();
    await importWith(api, "opencode", [dir]);
    const others = messagesOf(api, "oc-ses_main01");
    expect(messagesOf(api, "oc-ses_undo")).toHaveLength(4);
    // /undo of the last turn, then a new prompt: opencode deletes the undone messages and their parts.
    db2(dir, (d) => {
      d.query("DELETE FROM part WHERE message_id IN ('msg_703', 'msg_704')").run();
      d.query("DELETE FROM message WHERE id IN ('msg_703', 'msg_704')").run();
      d.query("UPDATE session SET time_updated = ? WHERE id = ?").run(T + 60_000, "ses_undo");
      add(d, "msg_705", T + 61_000, "user", "drop the unused locales instead");
      add(d, "msg_706", T + 65_000, "assistant", "Kept moment.js with two locales.");
    });
    const r = await importWith(api, "opencode", [dir]);
    expect(r.messages).toMatchObject({ added: 2, removed: 2 });
    expect(messagesOf(api, "oc-ses_undo").map((m) => m[1])).toEqual([
      "why is the bundle 2 MB?",
      "moment.js with every locale.",
      "drop the unused locales instead",
      "Kept moment.js with two locales.",
    ]);
    expect(messagesOf(api, "oc-ses_main01")).toEqual(others);
    expect((await importWith(api, "opencode", [dir])).messages).toMatchObject({ added: 0, removed: 0 });
    api.close();
  });

  test("legacy storage: new messages and parts of a session are picked up, an unchanged session is not read", async () => {
    const storage = join(tempHome("oc-legacy-"), "storage");
    writeOpencodeLegacy(storage);
    const put = (rel: string, o: unknown) => {
      mkdirSync(join(storage, rel, ".."), { recursive: true });
      writeFileSync(join(storage, rel), JSON.stringify(o));
    };
    const t = Date.UTC(2025, 10, 5, 9, 1, 0);
    const { api } = openTemp();
    expect((await importWith(api, "opencode", [storage])).messages.added).toBe(2);
    // The session file itself does not change: only message and part files are added.
    put("message/ses_legacy1/msg_c.json", { id: "msg_c", role: "user", time: { created: t } });
    put("part/msg_c/prt_1.json", { id: "prt_1", messageID: "msg_c", type: "text", text: "and the tests?" });
    // An editor's byte order mark does not make a file unreadable.
    const part = join(storage, "part/msg_c/prt_1.json");
    writeFileSync(part, `\uFEFF${readFileSync(part, "utf8")}`);
    // A reply still being written (no completion time) waits for a later pass.
    put("message/ses_legacy1/msg_d.json", { id: "msg_d", role: "assistant", time: { created: t + 2_000 } });
    put("part/msg_d/prt_1.json", { id: "prt_1", messageID: "msg_d", type: "text", text: "They pass" });
    const r = await importWith(api, "opencode", [storage]);
    expect(r.files).toMatchObject({ read: 1, unchanged: 0 });
    expect(r.messages).toMatchObject({ added: 1, existing: 2 });
    expect((await importWith(api, "opencode", [storage])).files).toMatchObject({ read: 0, unchanged: 1 });
    put("part/msg_d/prt_2.json", { id: "prt_2", messageID: "msg_d", type: "text", text: "under Bun too." });
    put("message/ses_legacy1/msg_d.json", {
      id: "msg_d",
      role: "assistant",
      time: { created: t + 2_000, completed: t + 3_000 },
    });
    expect((await importWith(api, "opencode", [storage])).messages).toMatchObject({ added: 1, existing: 3 });
    expect(messagesOf(api, "oc-ses_legacy1").slice(2)).toEqual([
      ["user", "and the tests?", "2025-11-05T09:01:00.000000000Z"],
      ["assistant", "They pass\n\nunder Bun too.", "2025-11-05T09:01:02.000000000Z"],
    ]);
    api.close();
  });

  test("OPENCODE_DB overrides; a locked or unreadable database is a clear error and nothing is half-imported", async () => {
    const xdg = tempHome("oc-src-");
    const dir = writeOpencodeData(xdg);
    const { api } = openTemp();
    const bad = join(xdg, "broken.db");
    writeFileSync(bad, "this is not a database, just text that is long enough to look like a header...........");
    const r = await importWith(api, "opencode", [], { env: { OPENCODE_DB: bad, XDG_DATA_HOME: join(xdg, "none") } });
    expect(r.files.failed).toBe(1);
    // The file given is named as not an opencode database: never memvoy's own archive.
    expect(r.failed[0]!.reason).toBe(`${bad}: not an opencode database (not an SQLite database)`);
    expect(api.sessions()).toEqual([]);
    // A real SQLite file damaged past its first page: SQLite's words, about that file.
    const damaged = join(xdg, "damaged.db");
    const bytes = readFileSync(join(dir, "opencode.db"));
    bytes.fill(0xa5, 4096);
    writeFileSync(damaged, bytes);
    const d = await importWith(api, "opencode", [damaged]);
    expect(d.failed[0]!.reason).toStartWith(`${damaged}: cannot read the opencode database (`);
    expect(d.failed[0]!.reason).not.toContain("history.db");
    expect(api.sessions()).toEqual([]);

    const locker = new Database(join(dir, "opencode.db"));
    locker.run("BEGIN EXCLUSIVE");
    try {
      const locked = await importWith(api, "opencode", [join(dir, "opencode.db")]);
      expect(locked.files.failed).toBe(1);
      expect(locked.failed[0]!.reason).toMatch(/opencode\.db.*(locked|busy)/i);
      expect(api.sessions()).toEqual([]);
    } finally {
      locker.run("ROLLBACK");
      locker.close();
    }
    api.close();
  }, 30_000);

  test("legacy storage that opencode moved into its database is an old copy: the database's sessions are read from it", async () => {
    const xdg = tempHome("oc-src-");
    const dir = writeOpencodeData(xdg);
    const storage = join(dir, "storage");
    // opencode copied the storage into the database when it moved to SQLite and left it in place; the session was then
    // renamed and its last turn undone in the database.
    const t = Date.UTC(2025, 10, 5, 9, 0, 0);
    db2(dir, (d) => {
      d.query("INSERT INTO session VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)").run(
        "ses_legacy1",
        "prj_old",
        null,
        "",
        "/home/dev/legacy",
        "Bun port",
        "0.3.0",
        t,
        t + 60_000,
      );
      const data = JSON.stringify({ role: "user", time: { created: t + 1_000 } });
      d.query("INSERT INTO message VALUES (?, ?, ?, ?, ?)").run("msg_a", "ses_legacy1", t + 1_000, t + 1_000, data);
      d.query("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)").run(
        "prt_1",
        "msg_a",
        "ses_legacy1",
        t + 1_000,
        t + 1_000,
        JSON.stringify({ type: "text", text: "can this run on Bun?" }),
      );
    });
    const { api } = openTemp();
    await importWith(api, "opencode", [], { env: { XDG_DATA_HOME: xdg } });
    expect(messagesOf(api, "oc-ses_legacy1")).toEqual([
      ["user", "can this run on Bun?", "2025-11-05T09:00:01.000000000Z"],
    ]);
    expect(sessionInfo(api, "oc-ses_legacy1")?.title).toBe("Bun port");
    // Given as PATH, the storage alone: the database beside it still holds the session.
    expect((await importWith(api, "opencode", [storage])).messages.added).toBe(0);
    expect(messagesOf(api, "oc-ses_legacy1")).toHaveLength(1);
    api.close();
  });

  test("where opencode keeps its database: a channel's opencode-<channel>.db, and a relative OPENCODE_DB in the data folder", async () => {
    const xdg = tempHome("oc-src-");
    const dir = writeOpencodeData(xdg);
    // A build of the dev channel keeps its sessions in opencode-dev.db; the release's opencode.db may be absent.
    renameSync(join(dir, "opencode.db"), join(dir, "opencode-dev.db"));
    const { api } = openTemp();
    const r = await importWith(api, "opencode", [], { env: { XDG_DATA_HOME: xdg } });
    expect(r.files).toMatchObject({ found: 2, read: 2, failed: 0 });
    expect(messagesOf(api, "oc-ses_main01")).toHaveLength(4);
    expect((await importWith(api, "opencode", [dir])).files).toMatchObject({ found: 2, unchanged: 2 });
    api.close();
    // OPENCODE_DB=work.db names $XDG_DATA_HOME/opencode/work.db, wherever memvoy runs.
    renameSync(join(dir, "opencode-dev.db"), join(dir, "work.db"));
    const other = openTemp().api;
    const w = await importWith(other, "opencode", [], { env: { XDG_DATA_HOME: xdg, OPENCODE_DB: "work.db" } });
    expect(w.files).toMatchObject({ found: 2, read: 2, failed: 0 });
    expect(messagesOf(other, "oc-ses_main01")).toHaveLength(4);
    other.close();
  });
});

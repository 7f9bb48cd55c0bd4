import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openTemp, removeTempHomes, tempHome } from "../fixture/home.ts";
import { writeOpencodeData } from "../fixture/import/opencode.ts";
import { importWith, messagesOf, sessionInfo } from "./support.ts";

afterAll(removeTempHomes);

// What opencode's session fork writes: a new session with no parent, and the messages before the chosen one copied
// under new ids with their role, text and creation time; the copies' rows are written at the fork's time.
const T = Date.UTC(2026, 8, 4, 9, 0, 0);
const F = T + 3_600_000;
const G = T + 7_200_000;

function withDb(dir: string, fn: (d: Database) => void): void {
  const d = new Database(join(dir, "opencode.db"));
  try {
    fn(d);
  } finally {
    d.close();
  }
}

const session = (d: Database, id: string, title: string, at: number) =>
  d
    .query("INSERT INTO session VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
    .run(id, "prj_1", null, id, "/home/dev/web", title, "1.4.0", at, at);

/** A message created at `created`, its row written at `written` (a copy's row is written when the fork is made). */
const add = (d: Database, id: string, sid: string, role: string, created: number, text: string, written = created) => {
  const data = { role, time: { created, completed: created + 100 } };
  d.query("INSERT INTO message VALUES (?, ?, ?, ?, ?)").run(id, sid, written, written, JSON.stringify(data));
  d.query("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)").run(
    `prt_${id}`,
    id,
    sid,
    written,
    written,
    JSON.stringify({ type: "text", text }),
  );
};

const original = (d: Database) => {
  session(d, "ses_orig", "Bundle size", T);
  add(d, "msg_o1", "ses_orig", "user", T + 1_000, "why is the bundle 2 MB?");
  add(d, "msg_o2", "ses_orig", "assistant", T + 5_000, "moment.js with every locale.");
  add(d, "msg_o3", "ses_orig", "user", T + 10_000, "replace it with date-fns");
  add(d, "msg_o4", "ses_orig", "assistant", T + 15_000, "Replaced; 400 kB saved.");
};

/** A fork of ses_orig at its second prompt, with one turn of its own. */
const fork = (d: Database) => {
  session(d, "ses_fork", "Bundle size (fork #1)", F);
  add(d, "msg_f1", "ses_fork", "user", T + 1_000, "why is the bundle 2 MB?", F);
  add(d, "msg_f2", "ses_fork", "assistant", T + 5_000, "moment.js with every locale.", F);
  add(d, "msg_f3", "ses_fork", "user", F + 10_000, "drop the unused locales instead");
  add(d, "msg_f4", "ses_fork", "assistant", F + 15_000, "Kept moment.js with two locales.");
};

const texts = (api: Parameters<typeof messagesOf>[0], id: string) => messagesOf(api, id).map((m) => m[1]);

describe("import opencode: forked sessions", () => {
  test("a fork holds its own turns once, names the session it came from, and the copies stay the original's", async () => {
    const dir = writeOpencodeData(tempHome("oc-fork-"));
    withDb(dir, (d) => {
      original(d);
      fork(d);
    });
    const { api } = openTemp();
    const r = await importWith(api, "opencode", [dir]);
    expect(texts(api, "oc-ses_fork")).toEqual(["drop the unused locales instead", "Kept moment.js with two locales."]);
    expect(sessionInfo(api, "oc-ses_fork")).toMatchObject({ parent: "oc-ses_orig", title: "Bundle size (fork #1)" });
    expect(messagesOf(api, "oc-ses_orig")).toHaveLength(4);
    const found = await api.search({ query: "bundle 2 MB", match: "keyword" });
    expect(found.hits.map((h) => h.message.session)).toEqual(["oc-ses_orig"]);
    const again = await importWith(api, "opencode", [dir]);
    expect(again.messages).toMatchObject({ added: 0, removed: 0 });
    // The fixture's 8, the original's 4 and the fork's own 2.
    expect(r.messages.added).toBe(14);
    api.close();
  });

  test("a second fork of the original at the same point comes from the original, not from the first fork", async () => {
    const dir = writeOpencodeData(tempHome("oc-fork-"));
    withDb(dir, (d) => {
      original(d);
      fork(d);
      session(d, "ses_fork_b", "Bundle size (fork #1)", G);
      add(d, "msg_b1", "ses_fork_b", "user", T + 1_000, "why is the bundle 2 MB?", G);
      add(d, "msg_b2", "ses_fork_b", "assistant", T + 5_000, "moment.js with every locale.", G);
      add(d, "msg_b3", "ses_fork_b", "user", G + 10_000, "split the locales into chunks");
    });
    const { api } = openTemp();
    await importWith(api, "opencode", [dir]);
    expect(texts(api, "oc-ses_fork_b")).toEqual(["split the locales into chunks"]);
    expect(sessionInfo(api, "oc-ses_fork_b")?.parent).toBe("oc-ses_orig");
    api.close();
  });

  test("a fork made after the original was imported, and a fork of that fork, found in later passes", async () => {
    const dir = writeOpencodeData(tempHome("oc-fork-"));
    withDb(dir, original);
    const { api } = openTemp();
    await importWith(api, "opencode", [dir]);
    // The fork, with no turn of its own yet: nothing to import, but it is remembered as a fork. A row that is not JSON
    // is reported, and the copies are still matched.
    withDb(dir, (d) => {
      d.query("INSERT INTO message VALUES (?, ?, ?, ?, ?)").run("msg_bad", "ses_orig", F, F, "{not json");
      session(d, "ses_fork", "Bundle size (fork #1)", F);
      add(d, "msg_f1", "ses_fork", "user", T + 1_000, "why is the bundle 2 MB?", F);
      add(d, "msg_f2", "ses_fork", "assistant", T + 5_000, "moment.js with every locale.", F);
    });
    const pass = await importWith(api, "opencode", [dir]);
    expect(pass.messages.added).toBe(0);
    expect(pass.skipped.map((p) => p.reason)).toEqual(["message msg_bad: data is not a JSON object"]);
    withDb(dir, (d) => {
      add(d, "msg_f3", "ses_fork", "user", F + 10_000, "drop the unused locales instead");
      add(d, "msg_f4", "ses_fork", "assistant", F + 15_000, "Kept moment.js with two locales.");
    });
    expect((await importWith(api, "opencode", [dir])).messages.added).toBe(2);
    expect(texts(api, "oc-ses_fork")).toEqual(["drop the unused locales instead", "Kept moment.js with two locales."]);
    expect(sessionInfo(api, "oc-ses_fork")?.parent).toBe("oc-ses_orig");
    // A fork of the fork copies the original's turns and the fork's own: it comes from the fork.
    withDb(dir, (d) => {
      session(d, "ses_fork2", "Bundle size (fork #2)", G);
      add(d, "msg_g1", "ses_fork2", "user", T + 1_000, "why is the bundle 2 MB?", G);
      add(d, "msg_g2", "ses_fork2", "assistant", T + 5_000, "moment.js with every locale.", G);
      add(d, "msg_g3", "ses_fork2", "user", F + 10_000, "drop the unused locales instead", G);
      add(d, "msg_g5", "ses_fork2", "user", G + 10_000, "what about dayjs?");
    });
    const r = await importWith(api, "opencode", [dir]);
    expect(r.messages.added).toBe(1);
    expect(texts(api, "oc-ses_fork2")).toEqual(["what about dayjs?"]);
    expect(sessionInfo(api, "oc-ses_fork2")?.parent).toBe("oc-ses_fork");
    expect(texts(api, "oc-ses_fork")).toHaveLength(2);
    expect(texts(api, "oc-ses_orig")).toHaveLength(4);
    api.close();
  });

  test("copies whose original is gone from opencode are kept; a session that merely shares a text is no fork", async () => {
    const dir = writeOpencodeData(tempHome("oc-fork-"));
    withDb(dir, (d) => {
      original(d);
      fork(d);
      d.query("DELETE FROM part WHERE session_id = 'ses_orig'").run();
      d.query("DELETE FROM message WHERE session_id = 'ses_orig'").run();
      d.query("DELETE FROM session WHERE id = 'ses_orig'").run();
      // Asked again in a new session: the same words, its own time.
      session(d, "ses_again", "Bundle size again", G);
      add(d, "msg_a1", "ses_again", "user", G + 1_000, "drop the unused locales instead");
    });
    const { api } = openTemp();
    await importWith(api, "opencode", [dir]);
    expect(messagesOf(api, "oc-ses_fork")).toHaveLength(4);
    expect(sessionInfo(api, "oc-ses_fork")?.parent).toBeUndefined();
    expect(texts(api, "oc-ses_again")).toEqual(["drop the unused locales instead"]);
    expect(sessionInfo(api, "oc-ses_again")?.parent).toBeUndefined();
    api.close();
  });

  test("legacy storage: a fork (no parent, placeholder title) holds its own turns and is titled from them", async () => {
    const storage = join(tempHome("oc-fork-legacy-"), "storage");
    const put = (rel: string, o: unknown) => {
      mkdirSync(join(storage, rel, ".."), { recursive: true });
      writeFileSync(join(storage, rel), JSON.stringify(o));
    };
    const sess = (id: string, at: number, title: string) =>
      put(`session/prj_old/${id}.json`, {
        id,
        projectID: "prj_old",
        directory: "/home/dev/legacy",
        title,
        version: "0.3.0",
        time: { created: at, updated: at },
      });
    const msg = (sid: string, id: string, role: string, at: number, text: string) => {
      put(`message/${sid}/${id}.json`, { id, sessionID: sid, role, time: { created: at, completed: at + 100 } });
      put(`part/${id}/prt_1.json`, { id: "prt_1", messageID: id, sessionID: sid, type: "text", text });
    };
    sess("ses_a", T, "Port the CLI to Bun");
    msg("ses_a", "msg_a1", "user", T + 1_000, "can this run on Bun?");
    msg("ses_a", "msg_a2", "assistant", T + 4_000, "Yes; only the sqlite driver changes.");
    msg("ses_a", "msg_a3", "user", T + 9_000, "do it");
    sess("ses_b", F, `New session - ${new Date(F).toISOString()}`);
    msg("ses_b", "msg_b1", "user", T + 1_000, "can this run on Bun?");
    msg("ses_b", "msg_b2", "assistant", T + 4_000, "Yes; only the sqlite driver changes.");
    msg("ses_b", "msg_b3", "user", F + 2_000, "what about Deno?");
    const { api } = openTemp();
    await importWith(api, "opencode", [storage]);
    expect(texts(api, "oc-ses_b")).toEqual(["what about Deno?"]);
    expect(sessionInfo(api, "oc-ses_b")).toMatchObject({ parent: "oc-ses_a", title: "what about Deno?" });
    expect(texts(api, "oc-ses_a")).toHaveLength(3);
    api.close();
  });
});

import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openTemp, removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

const writeHistory = (home: string, session: string, content: string) => {
  mkdirSync(join(home, "sessions", session), { recursive: true });
  writeFileSync(
    join(home, "sessions", session, "history.json"),
    JSON.stringify([{ role: "user", content, sendAt: "2026-01-02T03:04:05Z" }]),
  );
};
const messagesOf = (sessions: { id: string; messages: number }[], id: string) =>
  sessions.find((s) => s.id === id)?.messages;
const OLD = new Date("2020-01-01T00:00:00Z");

describe("session discovery", () => {
  test("a folder created after open is found and backfilled by the next sessions() and the next global search", async () => {
    const { home, api } = openTemp();
    api.add("known", { role: "user", content: "already here" });
    expect(api.sessions().map((s) => s.id)).toEqual(["known"]);

    writeHistory(home, "late", "a lighthouse keeper");
    expect(messagesOf(api.sessions(), "late")).toBe(1);

    writeHistory(home, "later", "a submarine cook");
    const hits = (await api.search({ query: "submarine" })).hits;
    expect(hits.map((h) => h.message.session)).toEqual(["later"]);
    expect(messagesOf(api.sessions(), "later")).toBe(1);
    api.close();
  });

  test("a folder whose history.json arrives after the folder is still adopted", () => {
    const { home, api } = openTemp();
    mkdirSync(join(home, "sessions", "empty-first"));
    expect(messagesOf(api.sessions(), "empty-first")).toBe(0);
    writeHistory(home, "empty-first", "written later");
    expect(messagesOf(api.sessions(), "empty-first")).toBe(1);
    api.close();
  });

  test("a new process adopts only the folders the archive lacks: valid ids, folders, not files or odd names", async () => {
    const { home, api } = openTemp();
    for (let i = 0; i < 30; i++) api.add(`known-${i}`, { role: "user", content: `known message ${i}` });
    api.close();
    writeHistory(home, "copied-in", "an unknown folder with a narwhal");
    writeHistory(home, ".hidden", "a narwhal in a folder that is no session id");
    writeFileSync(join(home, "sessions", "plain-file"), "not a folder");
    const again = openTemp({ home }).api;
    const hits = (await again.search({ query: "narwhal" })).hits;
    expect(hits.map((h) => h.message.session)).toEqual(["copied-in"]);
    const ids = again.sessions().map((s) => s.id);
    expect(ids).toContain("copied-in");
    expect(ids).not.toContain(".hidden");
    expect(ids).not.toContain("plain-file");
    expect(messagesOf(again.sessions(), "known-7")).toBe(1);
    again.close();
  });

  test("sessions/ is scanned again only when its mtime changes", () => {
    const { home, api } = openTemp();
    const sessions = join(home, "sessions");
    utimesSync(sessions, OLD, OLD);
    expect(api.sessions()).toEqual([]);
    // A folder appears but sessions/ keeps the mtime of the last scan: no scan, so no backfill.
    writeHistory(home, "hidden", "not scanned");
    utimesSync(sessions, OLD, OLD);
    expect(statSync(sessions).mtimeMs).toBe(OLD.getTime());
    expect(messagesOf(api.sessions(), "hidden")).toBe(0);
    // The mtime moves: the next call scans and backfills.
    const now = new Date();
    utimesSync(sessions, now, now);
    expect(messagesOf(api.sessions(), "hidden")).toBe(1);
    api.close();
  });

  describe("the mark a complete scan leaves for the next process", () => {
    const markPath = (home: string) => join(home, ".store", "sessions-scan.json");
    /** A home with two sessions whose sessions/ mtime is old, scanned once (which saves the mark). */
    const scannedHome = () => {
      const { home, api } = openTemp();
      api.add("one", { role: "user", content: "first" });
      api.add("two", { role: "user", content: "second" });
      api.close();
      utimesSync(join(home, "sessions"), OLD, OLD);
      const scan = openTemp({ home }).api;
      expect(
        scan
          .sessions()
          .map((s) => s.id)
          .sort(),
      ).toEqual(["one", "two"]);
      scan.close();
      return home;
    };
    /** A folder that appears without sessions/'s mtime moving (what a scan skipped on the mark would miss). */
    const sneakFolder = (home: string, id: string, content: string) => {
      writeHistory(home, id, content);
      utimesSync(join(home, "sessions"), OLD, OLD);
    };

    test("a later process with the same sessions/ and archive does not list sessions/ again", async () => {
      const home = scannedHome();
      expect(existsSync(markPath(home))).toBe(true);
      sneakFolder(home, "unseen", "an albatross");
      const again = openTemp({ home }).api;
      expect((await again.search({ query: "albatross" })).hits).toEqual([]);
      again.close();
      // sessions/ changes: the next process scans and adopts the folder.
      const now = new Date();
      utimesSync(join(home, "sessions"), now, now);
      const later = openTemp({ home }).api;
      expect((await later.search({ query: "albatross" })).hits.map((h) => h.message.session)).toEqual(["unseen"]);
      later.close();
    });

    test("a session row removed since the mark (its folder left behind) makes the next process scan", async () => {
      const home = scannedHome();
      const db = new Database(join(home, ".store", "history.db"));
      db.run("DELETE FROM sessions WHERE id = 'one'");
      db.close();
      sneakFolder(home, "unseen", "a cormorant");
      const again = openTemp({ home }).api;
      expect((await again.search({ query: "cormorant" })).hits.map((h) => h.message.session)).toEqual(["unseen"]);
      again.close();
    });

    test("no mark while sessions/ changed moments ago, nor while a folder waits for its history.json", () => {
      const { home, api } = openTemp();
      api.add("fresh", { role: "user", content: "just written" });
      // An mtime ahead of the clock is as recent as one can be, however slow the machine.
      const soon = new Date(Date.now() + 3_600_000);
      utimesSync(join(home, "sessions"), soon, soon);
      expect(api.sessions().map((s) => s.id)).toEqual(["fresh"]);
      expect(existsSync(markPath(home))).toBe(false);
      api.close();
      mkdirSync(join(home, "sessions", "waiting"));
      utimesSync(join(home, "sessions"), OLD, OLD);
      const again = openTemp({ home }).api;
      again.sessions();
      expect(existsSync(markPath(home))).toBe(false);
      again.close();
      // Its history.json arrives (sessions/ keeps its mtime): the next process still looks at the folder.
      sneakFolder(home, "waiting", "a pelican");
      const later = openTemp({ home }).api;
      expect(messagesOf(later.sessions(), "waiting")).toBe(1);
      expect(existsSync(markPath(home))).toBe(true);
      later.close();
    });

    test("a symbolic link at the mark's path is neither read nor written through", async () => {
      const home = scannedHome();
      const mark = readFileSync(markPath(home), "utf8");
      const elsewhere = join(tempHome(), "mark.json");
      writeFileSync(elsewhere, mark);
      rmSync(markPath(home));
      symlinkSync(elsewhere, markPath(home));
      sneakFolder(home, "unseen", "a puffin");
      const again = openTemp({ home }).api;
      expect((await again.search({ query: "puffin" })).hits.map((h) => h.message.session)).toEqual(["unseen"]);
      again.close();
      expect(readFileSync(elsewhere, "utf8")).toBe(mark);
    });
  });
});

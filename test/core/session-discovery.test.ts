import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openTemp, removeTempHomes } from "../fixture/home.ts";

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
});

import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { parseHistory, readHistory, serializeHistory } from "../../src/storage/history/history-file.ts";
import { parseTime } from "../../src/shared/time.ts";
import { openTemp, removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

describe("history.json records", () => {
  test("round-trips sendAt to the nanosecond", () => {
    const rec = { id: "01ABC", role: "user" as const, content: "hi", sendAt: 1764476000123456789n, sender: "ann" };
    const doc = parseHistory(serializeHistory([rec]), "x");
    expect(doc.records).toEqual([rec]);
    expect(doc.legacy).toBe(false);
  });

  test("normalises Agenvoy records: integer ns sendAt, no id", () => {
    const text =
      '[{"role":"user","content":"hello","sendAt":1764476000123456789,"sender":"bob"},{"role":"assistant","content":"hi"}]';
    const doc = parseHistory(text, "x");
    expect(doc.legacy).toBe(true);
    expect(doc.records[0]).toMatchObject({
      id: "",
      role: "user",
      content: "hello",
      sendAt: 1764476000123456789n,
      sender: "bob",
    });
    // A record with no time follows the previous one.
    expect(doc.records[1]!.sendAt).toBe(1764476000123456790n);
  });

  test("an integer sendAt past the 64-bit nanosecond range is no time: the record follows its neighbour", async () => {
    for (const huge of ["99999999999999999999", "9300000000000000000"]) {
      const text = `[{"role":"user","content":"a","sendAt":${huge}},{"role":"assistant","content":"b","sendAt":1764476000123456789}]`;
      const doc = parseHistory(text, "x");
      expect(doc.records.map((r) => r.sendAt)).toEqual([1764476000123456788n, 1764476000123456789n]);
      expect(doc.records[0]!.untimed).toBe(true);
      // And the session reads and takes new messages, the record keeping its place.
      const home = tempHome();
      mkdirSync(join(home, "sessions", "x"), { recursive: true, mode: 0o700 });
      writeFileSync(join(home, "sessions", "x", "history.json"), text);
      const api = openTemp({ home, drain: "off" });
      expect(api.api.history("x").map((m) => m.content)).toEqual(["a", "b"]);
      api.api.add("x", [{ role: "user", content: "c" }]);
      expect(api.api.history("x").map((m) => m.content)).toEqual(["a", "b", "c"]);
      api.api.close();
    }
  });

  test("a history.json that is not UTF-8 is refused as corrupt and left as it is, never rewritten with replacements", () => {
    const home = tempHome();
    const dir = join(home, "sessions", "x");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = join(dir, "history.json");
    const bytes = Buffer.concat([
      Buffer.from('[\n{"id":"01KBRFANY38HZH90S332SQTMXS","role":"user","content":"caf'),
      Buffer.from([0xe9]), // "é" in Latin-1: a file saved in another encoding
      Buffer.from(' cr\u00e8me","sendAt":"2025-12-06T00:00:01.987654321Z"}\n]\n'),
    ]);
    writeFileSync(file, bytes);
    expect(() => readHistory(file)).toThrow(
      `${file} is corrupt (line 2, column 64: not valid UTF-8 (saved in another encoding?)); it was left untouched`,
    );
    const { api } = openTemp({ home, drain: "off" });
    try {
      expect(() => api.add("x", [{ role: "user", content: "more" }])).toThrow(/not valid UTF-8/);
      expect(() => api.history("x")).toThrow(/not valid UTF-8/);
    } finally {
      api.close();
    }
    expect(readFileSync(file)).toEqual(bytes);
  });

  test("strips legacy time headers from content and reads the time in the local timezone", () => {
    const content = "---\n當前時間: 2026-05-01 09:30:00\n工作目錄: /srv/app\n傳送者: alice\n---\nplease deploy";
    const doc = parseHistory(JSON.stringify([{ role: "user", content }]), "x");
    expect(doc.records[0]!.content).toBe("please deploy");
    expect(doc.records[0]!.sender).toBe("alice");
    expect(doc.records[0]!.sendAt).toBe(parseTime("2026-05-01 09:30:00")!);
  });

  test("a zero sendAt is Agenvoy's no time: the header's time or the neighbour's stands, never 1970", () => {
    const header = "---\n當前時間: 2026-05-01 09:30:00\n---\nplease deploy";
    const text = JSON.stringify([
      { role: "user", content: header, sendAt: 0 },
      { role: "assistant", content: "done", sendAt: 0 },
    ]);
    const doc = parseHistory(text, "x");
    const t = parseTime("2026-05-01 09:30:00")!;
    expect(doc.records.map((r) => [r.content, r.sendAt, r.untimed ?? false])).toEqual([
      ["please deploy", t, false],
      ["done", t + 1n, true],
    ]);
  });

  test("strips the sendAt prefix line and joins content parts", () => {
    const doc = parseHistory(
      JSON.stringify([
        { role: "user", content: "sendAt: 2026-08-12 04:13:01, sender: X\nwhat now" },
        {
          role: "assistant",
          content: [
            { type: "text", text: "part one" },
            { type: "text", text: "part two" },
          ],
        },
      ]),
      "x",
    );
    expect(doc.records[0]).toMatchObject({ content: "what now", sender: "X" });
    expect(doc.records[1]!.content).toBe("part one\npart two");
  });

  test("a corrupt file names the file and where the parse failed", () => {
    expect(() => parseHistory('[\n{"role":"user","content":"a"},\n{"role": oops}\n]', "/h/history.json")).toThrow(
      /\/h\/history\.json is corrupt \(line 3, column 10: invalid JSON\)/,
    );
    expect(() => parseHistory('{"role":"user"}', "f")).toThrow(/expected a JSON array/);
    expect(() => parseHistory('[{"role":"wizard","content":"x"}]', "f")).toThrow(/record 1: unknown role "wizard"/);
  });

  test("backfill adopts an Agenvoy history.json on first encounter and rewrites it with ids, in Agenvoy's form", async () => {
    const home = tempHome();
    mkdirSync(join(home, "sessions", "old"), { recursive: true });
    const file = join(home, "sessions", "old", "history.json");
    writeFileSync(
      file,
      '[{"role":"user","content":"legacy deploy question","sendAt":1764476000123456789},{"role":"assistant","content":"legacy answer","sendAt":1764476001000000000}]',
    );
    const { api } = openTemp({ home });
    expect(api.sessions().map((s) => [s.id, s.messages])).toEqual([["old", 2]]);
    const all = api.history("old", { all: true });
    expect(all.map((m) => m.sendAt)).toEqual([1764476000123456789n, 1764476001000000000n]);
    const onDisk = JSON.parse(readFileSync(file, "utf8"));
    expect(onDisk.map((r: { id: string }) => r.id)).toEqual(all.map((m) => m.id));
    // Integer nanoseconds stay integers (Agenvoy's reader takes nothing else), written digit for digit.
    expect(readFileSync(file, "utf8")).toContain('"sendAt":1764476000123456789}');
    const hits = await api.search({ query: "legacy deploy" });
    expect(hits.hits.map((h) => h.message.id)).toContain(all[0]!.id);
    api.close();
  });

  test("a history.json or summary.json that starts with a byte order mark is read, and the next write drops the mark", () => {
    // A file saved by a Windows editor: it was refused as corrupt, and doctor --repair then rebuilt the
    // history.json of a session the archive had never seen with none of its messages.
    const home = tempHome();
    mkdirSync(join(home, "sessions", "bom"), { recursive: true });
    const file = join(home, "sessions", "bom", "history.json");
    const bom = "\uFEFF";
    writeFileSync(file, `${bom}[{"role":"user","content":"saved with a mark","sendAt":1764476000123456789}]`);
    const summary = { key_decisions: ["Do: keep it"], past_discussions: [], current_discussion: {} };
    writeFileSync(join(home, "sessions", "bom", "summary.json"), bom + JSON.stringify(summary));
    const { api } = openTemp({ home });
    expect(api.history("bom", { all: true }).map((m) => m.content)).toEqual(["saved with a mark"]);
    api.add("bom", { role: "assistant", content: "read" });
    const text = readFileSync(file, "utf8");
    expect(text.startsWith("[")).toBe(true);
    expect(JSON.parse(text).map((r: { content: string }) => r.content)).toEqual(["saved with a mark", "read"]);
    expect(api.summary("bom")).toMatchObject({ state: "ok", summary: { key_decisions: ["Do: keep it"] } });
    api.close();
  });

  test("records appended by an older writer without ids are adopted at the next add", () => {
    const { home, api } = openTemp();
    api.add("s", { role: "user", content: "first" });
    const file = join(home, "sessions", "s", "history.json");
    const arr = JSON.parse(readFileSync(file, "utf8"));
    arr.push({ role: "assistant", content: "written by another program", sendAt: 1764476000000000000 });
    writeFileSync(file, JSON.stringify(arr));
    api.add("s", { role: "user", content: "third" });
    expect(api.history("s", { all: true }).map((m) => m.content)).toEqual([
      "first",
      "written by another program",
      "third",
    ]);
    expect(readHistory(file).records.every((r) => r.id.length === 26)).toBe(true);
    api.close();
  });
});

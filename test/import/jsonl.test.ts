import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, openTemp, removeTempHomes, tempHome } from "../fixture/home.ts";
import type { HomeMemory } from "../../src/app/memory-api.ts";
import { importJsonlFiles, importJsonlStream } from "../../src/import/import-jsonl.ts";
import { CODEX_ZST_ID, zstRollout } from "../fixture/import/codex.ts";
import { importWith, memvoyExportLines, messagesOf, sessionInfo } from "./support.ts";

afterAll(removeTempHomes);

describe("import jsonl", () => {
  test("a refused message line says which field is wrong, and never shows its content", async () => {
    const file = join(tempHome("jsonl-"), "edited.jsonl");
    const line = (o: Record<string, unknown>) =>
      JSON.stringify({
        type: "message",
        id: "01KJMA0MG8VAKDWNJJK26GKTH6",
        session: "s1",
        role: "user",
        content: "private words",
        sendAt: "2026-03-01T09:00:05Z",
        ...o,
      });
    writeFileSync(
      file,
      `${[
        line({ sendAt: "1969-12-31T23:59:59Z" }),
        line({ sendAt: "2026-02-30T09:00:00Z" }),
        line({ id: "not an id", role: "system" }),
        line({ session: undefined, content: 42 }),
        line({ id: "01KJMA0MG8VAKDWNJJK26GKTH9" }),
      ].join("\n")}\n`,
    );
    const { api } = openTemp();
    const r = await importJsonlFiles(api, [file]);
    expect(r).toMatchObject({ messages: { added: 1 }, skippedCount: 4 });
    const when = "(RFC 3339, or a unix time in s, ms, us or ns) within 1970-01-01T00:00:00Z to 2262-04-11T23:47:16Z";
    expect(r.skipped.map((p) => [p.line, p.reason])).toEqual([
      [1, `message line: sendAt "1969-12-31T23:59:59Z" is not a time ${when}`],
      [2, `message line: sendAt "2026-02-30T09:00:00Z" is not a time ${when}`],
      [3, 'message line: id "not an id" is not 1-64 of A-Z a-z 0-9 _ -; role "system" is not user or assistant'],
      [4, "message line: no session; content is not a string"],
    ]);
    expect(JSON.stringify(r)).not.toContain("private words");
    api.close();
  });

  test("keeps ids, times, senders and metadata; never redacts; bad lines are skipped with file:line", async () => {
    const file = join(tempHome("jsonl-"), "backup.jsonl");
    const token = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefgh";
    writeFileSync(
      file,
      [
        JSON.stringify({ type: "session", id: "cc-x", source: "claude-code", title: "T", project: "/p" }),
        JSON.stringify({
          type: "message",
          id: "01KJMA0MG8VAKDWNJJK26GKTH6",
          session: "cc-x",
          role: "user",
          content: `key ${token}`,
          sendAt: "2026-03-01T09:00:05.123456789Z",
        }),
        "{oops",
        JSON.stringify({
          type: "message",
          id: "01KJMA0MG8VAKDWNJJK26GKTH7",
          session: "cc-x",
          role: "robot",
          content: "x",
          sendAt: "2026-03-01T09:00:06Z",
        }),
        JSON.stringify({ type: "summary", text: "not ours" }),
        JSON.stringify({
          type: "message",
          id: "01KJMA0MG8VAKDWNJJK26GKTH8",
          session: "cc-x",
          role: "assistant",
          content: "ok",
          sendAt: "2026-03-01T09:00:07Z",
          sender: "bot",
        }),
      ].join("\n") + "\n",
    );
    const { api } = openTemp();
    const r = await importJsonlFiles(api, [file]);
    expect(r).toMatchObject({ sessions: 1, messages: { added: 2 }, redacted: 0, skippedCount: 3 });
    expect(r.skipped.map((s) => s.line)).toEqual([3, 4, 5]);
    expect(messagesOf(api, "cc-x")).toEqual([
      ["user", `key ${token}`, "2026-03-01T09:00:05.123456789Z"],
      ["assistant", "ok", "2026-03-01T09:00:07.000000000Z"],
    ]);
    expect(api.history("cc-x", { all: true }).map((m) => [m.id, m.sender])).toEqual([
      ["01KJMA0MG8VAKDWNJJK26GKTH6", undefined],
      ["01KJMA0MG8VAKDWNJJK26GKTH8", "bot"],
    ]);
    expect(sessionInfo(api, "cc-x")).toMatchObject({ source: "claude-code", title: "T", project: "/p" });
    api.close();
  });

  test("a UTF-8 byte order mark before the first line is dropped: from a file, a .zst and stdin", async () => {
    const dir = tempHome("jsonl-bom-");
    const text =
      "\uFEFF" +
      [
        JSON.stringify({ type: "session", id: "s-bom", title: "With a BOM" }),
        JSON.stringify({
          type: "message",
          id: "01KJMA0MG8VAKDWNJJK26GKTH9",
          session: "s-bom",
          role: "user",
          content: "first",
          sendAt: "2026-03-01T09:00:05Z",
        }),
      ].join("\n") +
      "\n";
    const stream = new Blob([text]).stream();
    for (const read of [
      (api: HomeMemory) => importJsonlFiles(api, [join(dir, "bom.jsonl")]),
      (api: HomeMemory) => importJsonlStream(api, stream),
    ]) {
      writeFileSync(join(dir, "bom.jsonl"), text);
      const { api } = openTemp();
      const r = await read(api);
      expect(r).toMatchObject({ skippedCount: 0, failed: [], messages: { added: 1 } });
      expect(sessionInfo(api, "s-bom")).toMatchObject({ title: "With a BOM" });
      api.close();
    }
    // The shared line reader also serves the sources: a compressed Codex rollout with a BOM loses no line.
    const zst = join(dir, "rollout-2026-07-01T09-00-00-0199ffff-eeee-7ddd-8ccc-bbbbaaaa9999.jsonl.zst");
    writeFileSync(zst, Bun.zstdCompressSync(Buffer.from(`\uFEFF${zstRollout().join("\n")}\n`)));
    const { api } = openTemp();
    const r = await importWith(api, "codex", [zst]);
    expect(r).toMatchObject({ skippedCount: 0, messages: { added: 2 } });
    expect(sessionInfo(api, `codex-${CODEX_ZST_ID}`)).toMatchObject({ project: "/home/dev/zst" });
    api.close();
  });

  test("an export of a session removed since is kept out whole: the session does not come back empty", async () => {
    const file = join(tempHome("jsonl-"), "gone.jsonl");
    const { api } = openTemp({ drain: "off" });
    api.add("gone", [
      { role: "user", content: "first" },
      { role: "assistant", content: "second" },
    ]);
    api.add("kept", { role: "user", content: "still here" });
    const lines: string[] = [];
    for (const session of api.imports.exportSessions({ sessions: ["gone"] }))
      lines.push(...api.imports.exportLines(session));
    writeFileSync(file, `${lines.join("\n")}\n`);
    api.remove("gone");
    const r = await importJsonlFiles(api, [file]);
    expect(r.messages).toMatchObject({ added: 0, tombstoned: 2 });
    expect(api.sessions().map((x) => x.id)).toEqual(["kept"]);
    api.close();
  });

  test("text an older history.json left in the archive (empty, a NUL character) comes back exactly", async () => {
    const home = tempHome();
    mkdirSync(join(home, "sessions", "old"), { recursive: true });
    // Agenvoy's records: no id, nanosecond integer times; memvoy adopts them as they are.
    writeFileSync(
      join(home, "sessions", "old", "history.json"),
      '[{"role":"user","content":"","sendAt":1764950000000000000},' +
        '{"role":"assistant","content":"a\\u0000b","sendAt":1764950001000000000},' +
        '{"role":"user","content":"fine","sendAt":1764950002000000000}]',
    );
    const first = await cli(["export", "--all"], { home });
    expect(first.code).toBe(0);
    expect(first.stdout.trimEnd().split("\n")).toHaveLength(4);
    const file = join(tempHome("jsonl-"), "old.jsonl");
    writeFileSync(file, first.stdout);
    const { api, home: empty } = openTemp();
    const r = await importJsonlFiles(api, [file]);
    expect(r).toMatchObject({ messages: { added: 3 }, skippedCount: 0, failed: [] });
    api.close();
    expect((await cli(["export", "--all"], { home: empty })).stdout).toBe(first.stdout);
  });

  test("--since keeps only the messages sent from then on, and creates no session left with none", async () => {
    const file = join(tempHome("jsonl-"), "two.jsonl");
    const message = (id: string, session: string, sendAt: string) =>
      JSON.stringify({ type: "message", id, session, role: "user", content: `at ${sendAt}`, sendAt });
    writeFileSync(
      file,
      [
        JSON.stringify({ type: "session", id: "old", title: "Old" }),
        message("01KJMA0MG8VAKDWNJJK26GKTA1", "old", "2026-01-01T00:00:00Z"),
        JSON.stringify({ type: "session", id: "mixed", title: "Mixed" }),
        message("01KJMA0MG8VAKDWNJJK26GKTA2", "mixed", "2026-01-01T00:00:00Z"),
        message("01KJMA0MG8VAKDWNJJK26GKTA3", "mixed", "2026-03-01T00:00:00Z"),
      ].join("\n"),
    );
    const { api } = openTemp();
    const r = await importJsonlFiles(api, [file], { since: 1_767_225_600_000_000_000n + 86_400_000_000_000n });
    expect(r).toMatchObject({ sessions: 1, messages: { added: 1 } });
    expect(api.sessions().map((x) => [x.id, x.title])).toEqual([["mixed", "Mixed"]]);
    expect(messagesOf(api, "mixed")).toEqual([["user", "at 2026-03-01T00:00:00Z", "2026-03-01T00:00:00.000000000Z"]]);
    api.close();
  });

  test("a file that is not memvoy's export fails with its name", async () => {
    const file = join(tempHome("jsonl-"), "other.jsonl");
    writeFileSync(file, '{"a":1}\n{"b":2}\nnot json\n');
    const { api } = openTemp();
    const r = await importJsonlFiles(api, [file]);
    expect(r.files.failed).toBe(1);
    expect(r.failed[0]!.reason).toContain("other.jsonl: not a memvoy export");
    // That one failure says it all: its lines are not each reported as skipped too.
    expect(r.skippedCount).toBe(0);
    expect(r.skipped).toEqual([]);
    // A bad line before the first good one of an export is still reported.
    const export1 = join(tempHome("jsonl-"), "export.jsonl");
    writeFileSync(export1, ["not json", ...memvoyExportLines()].join("\n"));
    const ok = await importJsonlFiles(api, [export1]);
    expect(ok).toMatchObject({ messages: { added: 1 }, skippedCount: 1, failed: [] });
    expect(ok.skipped[0]).toMatchObject({ line: 1, reason: "not valid JSON" });
    api.close();
  });

  test("a device or a FIFO is read as a stream: /dev/null is an empty file, a FIFO's export comes in whole", async () => {
    const { api } = openTemp();
    const empty = join(tempHome("jsonl-"), "empty.jsonl");
    writeFileSync(empty, "");
    const fromNull = await importJsonlFiles(api, ["/dev/null"]);
    expect(fromNull.failed).toEqual([]);
    expect({ ...fromNull, paths: [] }).toEqual({ ...(await importJsonlFiles(api, [empty])), paths: [] });
    const dir = tempHome("jsonl-fifo-");
    const fifo = join(dir, "in.fifo");
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
    const writer = Bun.spawn(["sh", "-c", 'cat > "$1"', "sh", fifo], {
      stdin: new TextEncoder().encode(`${memvoyExportLines().join("\n")}\n`),
    });
    const r = await importJsonlFiles(api, [fifo]);
    await writer.exited;
    expect(r).toMatchObject({ failed: [], messages: { added: 1 } });
    api.close();
  });

  test("a file whose every message line lacks a field fails naming the first such line and what it needs", async () => {
    const file = join(tempHome("jsonl-"), "no-ids.jsonl");
    const line = (content: string) =>
      JSON.stringify({ type: "message", session: "s", role: "user", content, sendAt: "1786000000" });
    writeFileSync(file, `${line("first")}\n${line("second")}\n`);
    const { api } = openTemp();
    const r = await importJsonlFiles(api, [file]);
    expect(r.failed.map((f) => f.reason)).toEqual([
      `${file}: not a memvoy export (no session or message line it can read; line 1: message line: no id)`,
    ]);
    api.close();
  });

  test("stdin that is not memvoy's export is a failure naming (stdin), with exit 1", async () => {
    const { api } = openTemp();
    const stream = new Blob(['{"a":1}\nnot json\n']).stream();
    const r = await importJsonlStream(api, stream);
    expect(r.files).toMatchObject({ failed: 1, unchanged: 0 });
    expect(r.failed[0]!.reason).toBe("(stdin): not a memvoy export (no session or message line)");
    api.close();
    const run = await cli(["import", "jsonl", "-"], { home: tempHome("jsonl-stdin-"), stdin: "garbage\n" });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("1 failed");
  });
});

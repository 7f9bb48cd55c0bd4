import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { openTemp, removeTempHomes, tempHome } from "../fixture/home.ts";
import { importJsonlFiles } from "../../src/import/import-jsonl.ts";
import { messagesOf, sessionInfo } from "./support.ts";

afterAll(removeTempHomes);

describe("import jsonl", () => {
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

  test("a file that is not memvoy's export fails with its name", async () => {
    const file = join(tempHome("jsonl-"), "other.jsonl");
    writeFileSync(file, '{"a":1}\n{"b":2}\n');
    const { api } = openTemp();
    const r = await importJsonlFiles(api, [file]);
    expect(r.files.failed).toBe(1);
    expect(r.failed[0]!.reason).toContain("other.jsonl: not a memvoy export");
    api.close();
  });
});

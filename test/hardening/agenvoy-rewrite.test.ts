// Agenvoy writes its whole list back on every append, and keeps no ids. A list it loaded before a memvoy removal
// (rm-message, reset, rm) or compaction and writes back later holds the removed or archived messages without ids:
// a removed message never comes back (its content is tombstoned: a hash, never the text), and an archived one is
// never adopted a second time. A list written back while memvoy adds a message is kept, not renamed over.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { newId } from "../../src/shared/ids.ts";
import { appendRecords } from "../../src/memory/write-path.ts";
import { filesHolding } from "../fixture/files-holding.ts";
import { openTemp, removeTempHomes } from "../fixture/home.ts";
import { contextFor } from "../fixture/semantic-home.ts";

afterAll(removeTempHomes);

const T0 = 1_767_261_600_123_456_789n; // 2026-01-01T10:00:00.123456789Z

/** history.json as Agenvoy writes it: role, content, sendAt (integer ns), sender; no ids. */
function agenvoyWrite(file: string, list: { role: string; content: string; sendAt: bigint; sender?: string }[]): void {
  mkdirSync(dirname(file), { recursive: true });
  const records = list.map(
    (m) =>
      `{"role":${JSON.stringify(m.role)},"content":${JSON.stringify(m.content)},"sendAt":${m.sendAt}${
        m.sender ? `,"sender":${JSON.stringify(m.sender)}` : ""
      }}`,
  );
  writeFileSync(file, `[${records.join(",")}]`);
}

const conversation = [
  { role: "user", content: "hello there", sendAt: T0 },
  { role: "assistant", content: "my password is VANISHED-SECRET", sendAt: T0 + 5_000_000_000n, sender: "bot" },
  { role: "user", content: "thanks", sendAt: T0 + 10_000_000_000n },
];
const later = { role: "user", content: "a new turn", sendAt: T0 + 60_000_000_000n };

test("rm-message, then Agenvoy writes back the list it loaded before: the removed message stays out", async () => {
  const { home, api } = openTemp({ drain: "off" });
  const file = join(home, "sessions", "s", "history.json");
  try {
    const ids = api.add("s", conversation as never).ids;
    await api.rmMessage(ids[1]!);
    agenvoyWrite(file, [...conversation, later]);
    const report = api.doctor();
    expect(report.findings.map((f) => f.problem)).toEqual([
      "history.json holds 1 message(s) the archive lacks; history.json holds 1 removed message(s) without an id",
    ]);
    expect(api.history("s", { all: true }).map((m) => m.content)).toEqual(["hello there", "thanks", "a new turn"]);
    expect(readFileSync(file, "utf8")).not.toContain("VANISHED-SECRET");
    expect(filesHolding(home, "VANISHED-SECRET")).toEqual([]);
    expect(api.doctor().ok).toBe(true);
  } finally {
    api.close();
  }
}, 60_000);

for (const how of ["reset", "rm"] as const)
  test(`${how}, then Agenvoy writes back the session's old list with a new turn: only the new turn is adopted`, () => {
    const { home, api } = openTemp({ drain: "off" });
    const file = join(home, "sessions", "s", "history.json");
    try {
      api.add("s", conversation as never);
      if (how === "reset") api.reset("s");
      else api.remove("s");
      agenvoyWrite(file, [...conversation, later]);
      expect(api.history("s", { all: true }).map((m) => m.content)).toEqual(["a new turn"]);
      expect(api.sessions().find((s) => s.id === "s")?.messages).toBe(1);
      expect(readFileSync(file, "utf8")).not.toContain("VANISHED-SECRET");
    } finally {
      api.close();
    }
  });

test("compaction, then Agenvoy writes back the list it loaded before: the archived messages are not adopted twice", () => {
  const { home, api } = openTemp({ env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" }, drain: "off" });
  const file = join(home, "sessions", "s", "history.json");
  try {
    const list = Array.from({ length: 20 }, (_, i) => ({
      role: i % 2 ? "assistant" : "user",
      content: `message ${i} ${"x".repeat(300)}`,
      sendAt: T0 + BigInt(i) * 1_000_000_000n,
    }));
    api.add("s", list as never);
    expect(JSON.parse(readFileSync(file, "utf8")).length).toBeLessThan(20); // compacted
    agenvoyWrite(file, [...list, later]);
    const all = api.history("s", { all: true });
    expect(all.map((m) => m.content)).toEqual([...list, later].map((m) => m.content));
    expect(api.sessions().find((s) => s.id === "s")?.messages).toBe(21);
    expect(api.doctor().ok).toBe(true);
  } finally {
    api.close();
  }
});

test("Agenvoy writes its list while memvoy adds: its new record is kept and adopted, memvoy's message too", () => {
  const { home, api } = openTemp({ drain: "off" });
  const file = join(home, "sessions", "s", "history.json");
  const ctx = contextFor(home);
  try {
    api.add("s", conversation as never);
    const added = appendRecords(ctx, "s", () => {
      // Between memvoy's read of the file and its rename: Agenvoy writes back what it read, with its new turn.
      agenvoyWrite(file, [...conversation, later]);
      return [{ id: newId(), role: "assistant", content: "memvoy's reply", sendAt: later.sendAt + 1n }];
    });
    expect(added.ids).toHaveLength(1);
    expect(readFileSync(file, "utf8")).toContain("a new turn");
    expect(api.history("s", { all: true }).map((m) => m.content)).toEqual([
      ...conversation.map((m) => m.content),
      "memvoy's reply",
      "a new turn",
    ]);
    expect(api.doctor().ok).toBe(true);
  } finally {
    ctx.db.close();
    api.close();
  }
});

test("an older Agenvoy's records with no time, written back with a new turn, are not adopted a second time", () => {
  const { home, api } = openTemp({ drain: "off" });
  const file = join(home, "sessions", "old", "history.json");
  try {
    const write = (list: { role: string; content: string }[], mtime: number) => {
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      writeFileSync(file, JSON.stringify(list), { mode: 0o600 });
      utimesSync(file, mtime, mtime); // untimed records take their times from the file's mtime
    };
    const first = [
      { role: "user", content: "ok" },
      { role: "assistant", content: "first answer" },
    ];
    write(first, 1_767_261_600);
    expect(api.history("old", { all: true }).map((m) => m.content)).toEqual(["ok", "first answer"]);
    write([...first, { role: "user", content: "ok" }, { role: "assistant", content: "second answer" }], 1_767_261_700);
    expect(api.history("old", { all: true }).map((m) => m.content)).toEqual([
      "ok",
      "first answer",
      "ok",
      "second answer",
    ]);
    expect(api.doctor().findings).toEqual([]);
  } finally {
    api.close();
  }
});

test("a file another program leaves unreadable while memvoy adds: the add, committed, still succeeds", () => {
  const { home, api } = openTemp({ drain: "off" });
  const ctx = contextFor(home);
  try {
    for (const [session, leave] of [
      ["half-written", (file: string) => writeFileSync(file, '[{"role":"user","content":"a new')],
      [
        "folder",
        (file: string) => {
          rmSync(file);
          mkdirSync(file);
        },
      ],
    ] as const) {
      const file = join(home, "sessions", session, "history.json");
      api.add(session, conversation as never);
      const added = appendRecords(ctx, session, () => {
        leave(file);
        return [{ id: newId(), role: "assistant", content: "my reply", sendAt: later.sendAt }];
      });
      expect(added.ids).toHaveLength(1);
      rmSync(file, { recursive: true }); // the other program's mess cleared: the archive has every message
      expect(api.history(session, { all: true }).map((m) => m.content)).toEqual([
        ...conversation.map((m) => m.content),
        "my reply",
      ]);
    }
  } finally {
    ctx.db.close();
    api.close();
  }
});

import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openTemp, removeTempHomes, repoRoot, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

const db = (home: string) => new Database(join(home, ".store", "history.db"), { readonly: true, safeIntegers: true });
const historyOf = (home: string, s: string) =>
  JSON.parse(readFileSync(join(home, "sessions", s, "history.json"), "utf8"));

describe("dual write", () => {
  test("every message lands in history.json and SQLite with the same id and sendAt", () => {
    const { home, api } = openTemp();
    const r = api.add("s1", [
      { role: "user", content: "one", sendAt: "2026-01-02T03:04:05.123456789Z", sender: "ann" },
      { role: "assistant", content: "two" },
    ]);
    const file = historyOf(home, "s1");
    const rows = db(home).query("SELECT id, send_at, sender FROM messages ORDER BY seq").all() as {
      id: string;
      send_at: bigint;
      sender: string | null;
    }[];
    expect(file.map((x: { id: string }) => x.id)).toEqual(r.ids);
    expect(rows.map((x) => x.id)).toEqual(r.ids);
    expect(rows[0]!.send_at).toBe(1767323045123456789n);
    expect(file[0].sendAt).toBe("2026-01-02T03:04:05.123456789Z");
    expect(rows[0]!.sender).toBe("ann");
    api.close();
  });

  test("two processes appending 500 messages each to one session: exactly 1,000 everywhere", async () => {
    const home = tempHome();
    const script = join(home, "writer.ts");
    writeFileSync(
      script,
      `import { openMemory } from ${JSON.stringify(join(repoRoot, "src/app/open-memory.ts"))};
       const api = openMemory({ home: process.argv[2], env: {} });
       for (let i = 0; i < 500; i++) api.add("shared", { role: i % 2 ? "assistant" : "user", content: process.argv[3] + " " + i });
       api.close();`,
    );
    const procs = ["A", "B"].map((tag) => Bun.spawn(["bun", script, home, tag], { stderr: "pipe" }));
    const codes = await Promise.all(procs.map((p) => p.exited));
    const errors = await Promise.all(procs.map((p) => new Response(p.stderr).text()));
    expect({ codes, errors }).toEqual({ codes: [0, 0], errors: ["", ""] });
    const file = historyOf(home, "shared") as { id: string; content: string }[];
    expect(file.length).toBe(1000);
    expect(new Set(file.map((x) => x.id)).size).toBe(1000);
    for (const tag of ["A", "B"]) {
      const mine = file.filter((x) => x.content.startsWith(tag + " ")).map((x) => Number(x.content.split(" ")[1]));
      expect(mine).toEqual([...Array(500).keys()]); // each writer's order is kept
    }
    const d = db(home);
    expect((d.query("SELECT count(*) n FROM messages").get() as { n: bigint }).n).toBe(1000n);
    expect((d.query("SELECT count(DISTINCT id) n FROM messages").get() as { n: bigint }).n).toBe(1000n);
    expect((d.query("SELECT message_count n FROM sessions WHERE id='shared'").get() as { n: bigint }).n).toBe(1000n);
  }, 120_000);
});

describe("compaction", () => {
  test("trims to 80% on a user+assistant pair boundary and records start_at", async () => {
    const { home, api } = openTemp({ env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "8192" } });
    const body = "x".repeat(300);
    for (let i = 0; i < 40; i++) api.add("c", { role: i % 2 ? "assistant" : "user", content: `m${i} ${body}` });
    const file = historyOf(home, "c") as { id: string; role: string; sendAt: string; content: string }[];
    const size = readFileSync(join(home, "sessions", "c", "history.json")).length;
    expect(size).toBeLessThanOrEqual(8192);
    expect(file[0]!.role).toBe("user"); // kept part opens a user turn
    const d = db(home);
    const all = d.query("SELECT id, role, recent FROM messages ORDER BY seq").all() as {
      id: string;
      role: string;
      recent: bigint;
    }[];
    expect(all.length).toBe(40); // the archive keeps everything
    const firstKept = all.findIndex((m) => m.id === file[0]!.id);
    expect(all[firstKept - 1]!.role).toBe("assistant"); // the trimmed part ends with a complete pair
    expect(all.slice(0, firstKept).every((m) => m.recent === 0n)).toBe(true);
    expect(all.slice(firstKept).every((m) => m.recent === 1n)).toBe(true);
    expect(all.slice(firstKept).map((m) => m.id)).toEqual(file.map((m) => m.id));
    const meta = d.query("SELECT start_at, start_seq FROM message_meta WHERE session_id='c'").get() as {
      start_at: bigint;
      start_seq: bigint;
    };
    const firstRow = d.query("SELECT seq, send_at FROM messages WHERE id = ?").get(file[0]!.id) as {
      seq: bigint;
      send_at: bigint;
    };
    expect(meta.start_seq).toBe(firstRow.seq);
    expect(meta.start_at).toBe(firstRow.send_at);
    // vectors of the trimmed messages are scheduled for deletion, and they are no longer queued for embedding
    const del = d
      .query("SELECT before_seq FROM vector_deletes WHERE session_id='c' ORDER BY id DESC LIMIT 1")
      .get() as { before_seq: bigint };
    expect(del.before_seq).toBe(firstRow.seq);
    expect((d.query("SELECT count(*) n FROM embed_queue WHERE seq < ?").get(firstRow.seq) as { n: bigint }).n).toBe(0n);
    // the window reads the newest messages; --all reads everything
    expect(api.history("c", { all: true }).length).toBe(40);
    expect(api.history("c").at(-1)!.content.startsWith("m39 ")).toBe(true);
    api.close();
  });
});

describe("failures leave both stores as they were", () => {
  const canMount =
    spawnSync("sh", [
      "-c",
      "mkdir -p /tmp/.memvoy-mount-probe && mount -t tmpfs -o size=64k tmpfs /tmp/.memvoy-mount-probe && umount /tmp/.memvoy-mount-probe",
    ]).status === 0;

  test.skipIf(!canMount)("a full disk: the add fails, history.json and the database are unchanged", async () => {
    const home = tempHome();
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=600k", "tmpfs", home]);
    try {
      const { api } = openTemp({ home });
      api.add("s", { role: "user", content: "before the disk filled up" });
      const before = readFileSync(join(home, "sessions", "s", "history.json"), "utf8");
      // Fill the disk, leaving a little room.
      const filler = join(home, "filler");
      try {
        writeFileSync(filler, Buffer.alloc(2 * 1024 * 1024));
      } catch {}
      let failed: unknown;
      try {
        api.add("s", { role: "assistant", content: "y".repeat(200_000) });
      } catch (e) {
        failed = e;
      }
      expect(String((failed as Error)?.message ?? failed)).toMatch(/ENOSPC|no space|disk is full/i);
      expect(readFileSync(join(home, "sessions", "s", "history.json"), "utf8")).toBe(before);
      expect(api.history("s", { all: true }).map((m) => m.content)).toEqual(["before the disk filled up"]);
      expect(readdirSync(join(home, "sessions", "s")).filter((f) => f.includes(".tmp"))).toEqual([]);
      api.close();
    } finally {
      execFileSync("umount", ["-l", home]);
    }
  });

  test("a corrupt history.json is never overwritten; add refuses naming the file", () => {
    const { home, api } = openTemp();
    api.add("s", { role: "user", content: "hello" });
    const file = join(home, "sessions", "s", "history.json");
    writeFileSync(file, '[{"id":"x","role":"user","content":"hel');
    expect(() => api.add("s", { role: "assistant", content: "again" })).toThrow(
      /history\.json is corrupt \(line 1, column 40/,
    );
    expect(readFileSync(file, "utf8")).toBe('[{"id":"x","role":"user","content":"hel');
    expect(api.history("s", { all: true }).length).toBe(1);
    const report = api.doctor();
    expect(report.ok).toBe(false);
    const repaired = api.doctor({ repair: true });
    expect(repaired.ok).toBe(true);
    expect(readdirSync(join(home, "sessions", "s")).some((f) => f.startsWith("history.json.corrupt-"))).toBe(true);
    expect(historyOf(home, "s").map((m: { content: string }) => m.content)).toEqual(["hello"]);
    api.add("s", { role: "assistant", content: "after repair" });
    expect(historyOf(home, "s").length).toBe(2);
    api.close();
  });

  test("doctor --repair leaves a corrupt history.json the archive never read: a rebuild would empty the session", () => {
    // An Agenvoy history.json with a hand edit's trailing comma: memvoy never adopted it, so the archive has no copy.
    const home = tempHome();
    mkdirSync(join(home, "sessions", "old"), { recursive: true });
    const file = join(home, "sessions", "old", "history.json");
    const text = '[{"role":"user","content":"only here","sendAt":1764476000123456789},]';
    writeFileSync(file, text);
    const { api } = openTemp({ home });
    const report = api.doctor({ repair: true });
    expect(report.ok).toBe(false);
    const finding = report.findings.find((f) => f.session === "old")!;
    expect(finding).toMatchObject({ manual: true });
    expect(finding.repaired).toBeUndefined();
    expect(finding.problem).toContain("the archive holds none of the session's messages");
    expect(readFileSync(file, "utf8")).toBe(text);
    expect(readdirSync(join(home, "sessions", "old"))).toEqual(["history.json"]);
    api.close();
  });

  test("a deleted history.json (Agenvoy's reset) empties the context window; the archive keeps every message", () => {
    const { home, api } = openTemp();
    api.add("s", [
      { role: "user", content: "a" },
      { role: "assistant", content: "b" },
    ]);
    const file = join(home, "sessions", "s", "history.json");
    Bun.spawnSync(["rm", file]);
    expect(api.doctor().findings.map((f) => f.problem)).toEqual([
      "history.json was deleted by another program: 2 message(s) leave the context window (the archive keeps them)",
    ]);
    expect(api.doctor({ repair: true }).ok).toBe(true);
    expect(existsSync(file)).toBe(false);
    expect(api.history("s")).toEqual([]);
    expect(api.history("s", { all: true }).map((m) => m.content)).toEqual(["a", "b"]);
    api.close();
  });
});

describe("reset and rm", () => {
  test("reset keeps summary.json and the cursor; reset --all removes them; rm removes everything", () => {
    const { home, api } = openTemp();
    for (const s of ["r1", "r2", "r3"])
      api.add(s, [
        { role: "user", content: `hello ${s}` },
        { role: "assistant", content: "hi" },
      ]);
    for (const s of ["r1", "r2", "r3"]) {
      writeFileSync(
        join(home, "sessions", s, "summary.json"),
        '{"key_decisions":[],"past_discussions":[],"current_discussion":{}}',
      );
      writeFileSync(join(home, "sessions", s, ".summary_cursor"), "2026-01-01 00:00:00");
    }
    const d = db(home);
    const count = (s: string) =>
      (d.query("SELECT count(*) n FROM messages WHERE session_id = ?").get(s) as { n: bigint }).n;

    expect(api.reset("r1").messagesRemoved).toBe(2);
    expect(existsSync(join(home, "sessions", "r1", "history.json"))).toBe(false);
    expect(existsSync(join(home, "sessions", "r1", "summary.json"))).toBe(true);
    expect(existsSync(join(home, "sessions", "r1", ".summary_cursor"))).toBe(true);
    expect(count("r1")).toBe(0n);

    api.reset("r2", { all: true });
    expect(existsSync(join(home, "sessions", "r2", "summary.json"))).toBe(false);
    expect(existsSync(join(home, "sessions", "r2", ".summary_cursor"))).toBe(false);

    api.remove("r3");
    expect(existsSync(join(home, "sessions", "r3"))).toBe(false);
    expect(count("r3")).toBe(0n);
    expect(
      api
        .sessions()
        .map((s) => s.id)
        .sort(),
    ).toEqual(["r1", "r2"]);
    expect(() => api.remove("nope")).toThrow(/no such session "nope"/);
    // a reset session takes new messages
    api.add("r1", { role: "user", content: "fresh start" });
    expect(api.history("r1", { all: true }).map((m) => m.content)).toEqual(["fresh start"]);
    api.close();
  });
});

// The archive port's contract, run against every backend: SQLite (the embedded home) and PostgreSQL.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ArchivePort, NewMessage } from "../../src/storage/ports/archive-port.ts";
import { SessionLockTimeoutError } from "../../src/storage/ports/archive-errors.ts";
import { textQuery } from "../../src/search/text-query.ts";
import { leaseTurn } from "../../src/storage/ports/lease-turn.ts";
import { idTombstoneHash, keyTombstoneHash } from "../../src/storage/ports/tombstone-hash.ts";
import { backends } from "./archive-backends.ts";

const NOW = 1_790_000_000_000_000_000n;
const msg = (id: string, content: string, i = 0, extra: Partial<NewMessage> = {}): NewMessage => ({
  id,
  role: i % 2 ? "assistant" : "user",
  content,
  sendAt: NOW + BigInt(i) * 1_000_000_000n,
  ...extra,
});

for (const backend of backends()) {
  describe(`archive contract: ${backend.name}`, () => {
    let a: ArchivePort;
    beforeAll(async () => {
      a = await backend.open();
    }, 180_000);
    afterAll(() => backend.cleanup());

    test("append keeps order, counts the session and reads back by range, id and key", async () => {
      const out = await a.appendMessages(
        "s1",
        [
          msg("m1", "first", 0),
          msg("m2", "second", 1, { sender: "ana" }),
          msg("m3", "third", 2, { idempotencyKey: "k3" }),
        ],
        { now: NOW },
      );
      expect(out.map((o) => [o.message.id, o.added])).toEqual([
        ["m1", true],
        ["m2", true],
        ["m3", true],
      ]);
      expect(out[0]!.message.seq < out[1]!.message.seq && out[1]!.message.seq < out[2]!.message.seq).toBe(true);
      const all = await a.listMessages("s1");
      expect(all.map((m) => m.content)).toEqual(["first", "second", "third"]);
      expect(all[1]).toMatchObject({
        session: "s1",
        role: "assistant",
        sender: "ana",
        recent: true,
        sendAt: NOW + 1_000_000_000n,
      });
      expect((await a.listMessages("s1", { newestFirst: true, limit: 2 })).map((m) => m.id)).toEqual(["m3", "m2"]);
      expect((await a.listMessages("s1", { afterSeq: all[0]!.seq, beforeSeq: all[2]!.seq })).map((m) => m.id)).toEqual([
        "m2",
      ]);
      expect((await a.listMessages("s1", { filter: { role: "assistant" } })).map((m) => m.id)).toEqual(["m2"]);
      // a sender matches whatever its ASCII case (User finds user), on every backend alike
      expect((await a.listMessages("s1", { filter: { sender: "ANA" } })).map((m) => m.id)).toEqual(["m2"]);
      expect(await a.listMessages("s1", { filter: { sender: "Äna" } })).toEqual([]);
      expect((await a.listMessages("s1", { filter: { since: NOW + 1_000_000_000n } })).map((m) => m.id)).toEqual([
        "m2",
        "m3",
      ]);
      expect((await a.messagesById(["m3", "nope", "m1"])).map((m) => m.id)).toEqual(["m1", "m3"]);
      expect([...(await a.messagesByIdempotencyKey("s1", ["k3", "zz"])).keys()]).toEqual(["k3"]);
      expect(await a.countMessages("s1")).toBe(3);
      expect(await a.getSession("s1")).toMatchObject({ id: "s1", messageCount: 3, lastSendAt: NOW + 2_000_000_000n });
    });

    test("an idempotency key or id already stored returns the stored message and adds nothing", async () => {
      const again = await a.appendMessages(
        "s1",
        [
          msg("m3-retry", "third again", 3, { idempotencyKey: "k3" }),
          msg("m1", "first", 0),
          msg("m4", "fourth", 4, { idempotencyKey: "k4" }),
          msg("m4b", "fourth twin", 5, { idempotencyKey: "k4" }),
        ],
        { now: NOW },
      );
      expect(again.map((o) => [o.message.id, o.added])).toEqual([
        ["m3", false],
        ["m1", false],
        ["m4", true],
        ["m4", false],
      ]);
      expect(await a.countMessages("s1")).toBe(4);
      expect((await a.getSession("s1"))!.messageCount).toBe(4);
      // the same key in another session is another message
      const other = await a.appendMessages("s2", [msg("o1", "other", 0, { idempotencyKey: "k3" })], { now: NOW });
      expect(other[0]!.added).toBe(true);
    });

    test("the embedding queue: due, deferred, dequeued", async () => {
      await a.appendMessages("q", [msg("q1", "one", 0), msg("q2", "two", 1)], { now: NOW });
      await a.appendMessages("q", [msg("q3", "three", 2)], { now: NOW, queueEmbedding: false });
      expect(await a.queuedCount("q")).toBe(2);
      const due = await a.dueEmbeddings(NOW, 100);
      const mine = due.filter((d) => d.message.session === "q");
      expect(mine.map((d) => d.message.id)).toEqual(["q1", "q2"]);
      expect(mine[1]!.previous).toBe("one");
      await a.deferEmbeddings([mine[0]!.message.seq], "boom", NOW + 10n);
      expect((await a.dueEmbeddings(NOW, 100)).some((d) => d.message.id === "q1")).toBe(false);
      const later = (await a.dueEmbeddings(NOW + 10n, 100)).find((d) => d.message.id === "q1")!;
      expect(later.attempts).toBe(1);
      await a.dequeueEmbeddings(mine.map((d) => ({ seq: d.message.seq, id: d.message.id })));
      expect(await a.queuedCount("q")).toBe(0);
    });

    test("compaction moves the start and leaves the recent tier; removal drops rows and counts", async () => {
      await a.appendMessages("c", [msg("c1", "a", 0), msg("c2", "b", 1), msg("c3", "c", 2)], { now: NOW });
      const [, c2] = await a.listMessages("c");
      await a.archiveBefore("c", c2!.seq, c2!.sendAt, NOW);
      expect(await a.startOf("c")).toEqual({ startAt: c2!.sendAt, startSeq: c2!.seq });
      expect((await a.listMessages("c", { recentOnly: true })).map((m) => m.id)).toEqual(["c2", "c3"]);
      expect((await a.listMessages("c", { archivedOnly: true })).map((m) => m.id)).toEqual(["c1"]);
      expect(await a.removeMessage("c2", NOW)).toBe(true);
      expect(await a.removeMessage("c2", NOW)).toBe(false);
      expect((await a.getSession("c"))!.messageCount).toBe(2);
      await a.appendMessages("c", [msg("c4", "d", 3, { idempotencyKey: "kc4" })], { now: NOW });
      expect(await a.removeMessage("c4", NOW)).toBe(true);
      expect(await a.tombstoned([keyTombstoneHash("c", "kc4"), idTombstoneHash("c1")])).toEqual(
        new Set([keyTombstoneHash("c", "kc4")]),
      );
      // The removed ids too, in the removal's own write: a re-import cannot bring them back.
      expect(await a.tombstoned([idTombstoneHash("c2"), idTombstoneHash("c4")])).toEqual(
        new Set([idTombstoneHash("c2"), idTombstoneHash("c4")]),
      );
      expect(await a.removeSessionMessages("c", NOW)).toBe(2);
      expect(await a.tombstoned([idTombstoneHash("c1"), idTombstoneHash("c3")])).toEqual(
        new Set([idTombstoneHash("c1"), idTombstoneHash("c3")]),
      );
      expect(await a.countMessages("c")).toBe(0);
      expect(await a.startOf("c")).toBeUndefined();
    });

    test("keyword search: stems, session scope, filters, order by newest, removed rows gone", async () => {
      await a.appendMessages(
        "k",
        [
          msg("k1", "We deployed the payment service", 0),
          msg("k2", "deployment of the database went fine", 1),
          msg("k3", "nothing to see", 2),
        ],
        { now: NOW },
      );
      await a.appendMessages("k2", [msg("k4", "deploying keys", 0)], { now: NOW });
      const ids = async (q: string, o = {}) => (await a.searchText(textQuery(q)!, o)).map((h) => h.message.id).sort();
      expect(await ids("deploy")).toEqual(["k1", "k2", "k4"]);
      expect(await ids("deploy", { session: "k" })).toEqual(["k1", "k2"]);
      expect(await ids("deploy payment")).toEqual(["k1"]);
      expect(await ids("deploy", { filter: { role: "assistant" } })).toEqual(["k2"]);
      expect((await a.searchText(textQuery("deploy")!, { order: "newest" })).map((h) => h.message.id)).toEqual([
        "k4",
        "k2",
        "k1",
      ]);
      const hits = await a.searchText(textQuery("deploy")!, { session: "k" });
      expect(hits.every((h) => h.score > 0)).toBe(true);
      await a.removeMessage("k1", NOW);
      expect(await ids("payment")).toEqual([]);
    });

    test("sessions and metadata; key/value state", async () => {
      await a.setSessionMeta(
        "meta",
        { source: "codex", title: "first line", titleIsFallback: true, project: "/p" },
        NOW,
      );
      await a.setSessionMeta("meta", { title: "Real title" }, NOW);
      await a.setSessionMeta("meta", { title: "another first line", titleIsFallback: true }, NOW);
      expect(await a.sessionMeta("meta")).toEqual({ source: "codex", title: "Real title", project: "/p" });
      expect((await a.listSessions()).some((s) => s.id === "meta")).toBe(true);
      expect(await a.getMeta("embedder")).toBeUndefined();
      await a.setMeta("embedder", "builtin:1");
      await a.setMeta("embedder", "builtin:2");
      expect(await a.getMeta("embedder")).toBe("builtin:2");
      await a.setMeta("embedder", undefined);
      expect(await a.getMeta("embedder")).toBeUndefined();
    });

    test("error rows: insert, by signature (tool in any case), by id prefix, expiry and deletion", async () => {
      const fields = {
        tool: "Bash",
        signature: "command not found: <name>",
        error: "bash: foo: command not found",
        cause: null,
        fix: "install foo",
        outcome: "resolved" as const,
        keywords: ["shell"],
      };
      const row = await a.insertError("abc123", fields, NOW, NOW + 100n);
      expect(row).toMatchObject({ id: "abc123", tool: "Bash", keywords: ["shell"], occurrences: 1, hits: 0 });
      expect((await a.errorBySignature("bash", fields.signature))?.id).toBe("abc123");
      expect((await a.errorsByIdPrefix("abc", NOW)).map((r) => r.id)).toEqual(["abc123"]);
      expect(await a.errorsByIdPrefix("abc", NOW + 100n)).toEqual([]);
      expect((await a.expiredErrors(NOW + 100n, 10)).map((r) => r.id)).toEqual(["abc123"]);
      await a.deleteErrors([{ seq: row.seq, id: row.id }], NOW);
      expect(await a.errorBySignature("Bash", fields.signature)).toBeUndefined();
    });

    test("usage totals per purpose and model", async () => {
      await a.insertUsage({ at: NOW, session: "u", purpose: "summary", model: "m", inputTokens: 10, outputTokens: 2 });
      await a.insertUsage({
        at: NOW + 5n,
        session: "u",
        purpose: "summary",
        model: "m",
        inputTokens: 5,
        outputTokens: 1,
      });
      await a.insertUsage({ at: NOW, purpose: "noise", model: "m", inputTokens: 1, outputTokens: 1 });
      expect(await a.usageTotals("u")).toEqual([
        { purpose: "summary", model: "m", calls: 2, inputTokens: 15, outputTokens: 3 },
      ]);
      expect((await a.usageTotals("u", NOW + 1n))[0]!.calls).toBe(1);
    });

    test("summary runs: start, pending commit, settle, finish", async () => {
      await a.startSummaryRun("r", NOW);
      expect(await a.getSummaryRun("r")).toMatchObject({ session: "r", outcome: "running", chunksDone: 0 });
      const p = { seq: 7n, id: "m7", cursor: "2026-01-01T00:00:00Z" };
      await a.setPendingPosition("r", p, "sha1");
      expect((await a.getSummaryRun("r"))!.pending).toEqual({ ...p, sha: "sha1" });
      await a.settlePosition("r", p);
      const run = (await a.getSummaryRun("r"))!;
      expect(run.position).toEqual(p);
      expect(run.pending).toBeUndefined();
      await a.finishSummaryRun("r", NOW + 1n, "ok", {
        chunksDone: 2,
        chunksTotal: 2,
        calls: 2,
        inputTokens: 9,
        outputTokens: 3,
      });
      expect(await a.getSummaryRun("r")).toMatchObject({
        outcome: "ok",
        finishedAt: NOW + 1n,
        calls: 2,
        inputTokens: 9,
      });
    });

    test("what a summary run reads: untimed seqs, seq in use, newest send time, tokens since, position cleared", async () => {
      const out = await a.appendMessages(
        "ut",
        [msg("ut1", "first", 0), msg("ut2", "second", 1, { untimed: true }), msg("ut3", "third", 2)],
        { now: NOW },
      );
      const [s1, s2, s3] = out.map((o) => o.message.seq);
      expect([...(await a.untimedSeqs("ut"))]).toEqual([s2!]);
      expect(await a.maxSendAt("ut")).toBe(NOW + 2_000_000_000n);
      expect(await a.maxSendAt("no-such-session")).toBe(0n);
      expect(await a.seqInUse(s1!)).toBe(true);
      expect(await a.seqInUse(s3! + 1_000_000n)).toBe(false);
      await a.startSummaryRun("ut", NOW);
      await a.settlePosition("ut", { seq: s2!, id: "ut2", cursor: "c" });
      expect((await a.untimedSeqs("ut")).size).toBe(0);
      await a.clearSummaryPosition("ut");
      expect((await a.getSummaryRun("ut"))!.position).toBeUndefined();
      const before = await a.tokensSince(NOW + 1_000n);
      await a.insertUsage({
        at: NOW + 1_000n,
        session: "ut",
        purpose: "summary",
        model: "m",
        inputTokens: 7,
        outputTokens: 3,
      });
      await a.insertUsage({ at: NOW + 999n, purpose: "relevance", model: "m", inputTokens: 100, outputTokens: 1 });
      expect(await a.tokensSince(NOW + 1_000n)).toBe(before + 10);
    });

    test("the summary and cursor: versioned, compare-and-set", async () => {
      expect(await a.getSummaryState("sum")).toBeUndefined();
      const v1 = await a.putSummaryState("sum", { summary: '{"a":1}', cursor: "c1" }, NOW, null);
      expect(v1).toBe(1n);
      expect(await a.putSummaryState("sum", { summary: "x", cursor: "x" }, NOW, null)).toBeUndefined();
      expect(await a.putSummaryState("sum", { summary: '{"a":2}', cursor: "c2" }, NOW, 1n)).toBe(2n);
      expect(await a.putSummaryState("sum", { summary: "stale", cursor: "stale" }, NOW, 1n)).toBeUndefined();
      expect(await a.putSummaryState("sum", { summary: '{"a":3}', cursor: "c3" }, NOW + 1n)).toBe(3n);
      expect(await a.getSummaryState("sum")).toEqual({
        summary: '{"a":3}',
        cursor: "c3",
        version: 3n,
        updatedAt: NOW + 1n,
      });
    });

    test("session lock: exclusive across connections, other sessions free, timeout is a clear error", async () => {
      const b = await backend.reopen();
      let inside = 0;
      let most = 0;
      const work = (p: ArchivePort) =>
        p.withSessionLock("L", async () => {
          inside++;
          most = Math.max(most, inside);
          await Bun.sleep(5);
          inside--;
        });
      await Promise.all([work(a), work(b), work(a), work(b)]);
      expect(most).toBe(1);
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let entered!: () => void;
      const isIn = new Promise<void>((r) => (entered = r));
      const holder = a.withSessionLock("L2", async () => {
        entered();
        await held;
      });
      await isIn;
      expect(await b.withSessionLock("other", async () => "free")).toBe("free");
      const err = await b.withSessionLock("L2", async () => "no", { timeoutMs: 100 }).catch((e) => e);
      expect(err).toBeInstanceOf(SessionLockTimeoutError);
      release();
      await holder;
      expect(await b.withSessionLock("L2", async () => "yes", { timeoutMs: 30_000 })).toBe("yes");
    });

    test("job leases: one holder, renewal, release, expiry", async () => {
      const l1 = await a.acquireLease("summary", "s", "host-a", 60_000);
      expect(l1?.holder).toBe("host-a");
      expect(await a.acquireLease("summary", "s", "host-b", 60_000)).toBeUndefined();
      expect((await a.acquireLease("summary", "other", "host-b", 60_000))?.holder).toBe("host-b");
      expect((await a.acquireLease("summary", "s", "host-a", 60_000))?.holder).toBe("host-a");
      expect((await a.renewLease(l1!, 60_000))?.holder).toBe("host-a");
      expect((await a.leaseHolder("summary", "s"))?.holder).toBe("host-a");
      await a.releaseLease(l1!);
      expect(await a.leaseHolder("summary", "s")).toBeUndefined();
      const short = await a.acquireLease("drain", "s", "host-a", 1);
      expect(short).toBeDefined();
      // Poll until the 1 ms lease has expired on the archive's clock, then another holder takes it.
      let taken: Awaited<ReturnType<ArchivePort["acquireLease"]>>;
      for (let i = 0; i < 2000 && !taken; i++) {
        taken = await a.acquireLease("drain", "s", "host-b", 60_000);
        if (!taken) await Bun.sleep(2);
      }
      expect(taken?.holder).toBe("host-b");
      expect(await a.renewLease(short!, 60_000)).toBeUndefined();
    });

    test("a lease turn: one taker at a time, renewed while held beyond its length, given back", async () => {
      const b = await backend.reopen();
      const turnA = leaseTurn(a, { job: "vector-write", session: "*", holder: "a", ttlMs: 1500 });
      const turnB = leaseTurn(b, { job: "vector-write", session: "*", holder: "b", ttlMs: 1500 });
      const giveBack = await turnA();
      expect(giveBack).toBeDefined();
      // Held for several lease lengths: the renewal keeps b out (polled, not a fixed wait).
      const until = Date.now() + 3500;
      while (Date.now() < until) {
        expect(await turnB()).toBeUndefined();
        await Bun.sleep(50);
      }
      await giveBack!();
      const second = await turnB();
      expect(second).toBeDefined();
      await second!();
    });

    test("export and import keep seq, tier and key; small tables copy whole", async () => {
      const src = a;
      const dst = await backend.open();
      const rows = await src.exportMessages(0n, 10_000);
      expect(rows.length).toBe(await src.countMessages());
      expect(await dst.importMessages(rows, NOW)).toBe(rows.length);
      expect(await dst.importMessages(rows, NOW)).toBe(0);
      expect(await dst.exportMessages(0n, 10_000)).toEqual(rows);
      for (const t of ["sessions", "summary_runs", "llm_usage", "tombstones"] as const) {
        await dst.importRows(t, await src.exportRows(t));
        expect(await dst.exportRows(t)).toEqual(await src.exportRows(t));
      }
      const k = textQuery("deploy")!;
      expect((await dst.searchText(k)).map((h) => h.message.id).sort()).toEqual(
        (await src.searchText(k)).map((h) => h.message.id).sort(),
      );
      // new appends continue above the copied seqs
      const [next] = await dst.appendMessages("after-copy", [msg("ac1", "new", 0)], { now: NOW });
      expect(next!.message.seq > rows[rows.length - 1]!.seq).toBe(true);
    });
  });
}

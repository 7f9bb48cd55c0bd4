// Many processes on one archive: concurrent writers to one session lose and duplicate nothing; two
// "daemons" never hold the same job lease at once, and a dead one's lease expires for the other.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { ArchivePort } from "../../src/storage/ports/archive-port.ts";
import { backends } from "./archive-backends.ts";

const WORKER = join(import.meta.dir, "../fixture/archive-worker.ts");
const WRITERS = 4;
const PER_WRITER = 500;

function worker(kind: string, target: string, args: string[]) {
  return Bun.spawn(["bun", WORKER, kind, target, ...args], { stdout: "pipe", stderr: "pipe" });
}

async function finished(p: ReturnType<typeof worker>): Promise<string> {
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new Error(`worker failed (${code}): ${err}`);
  return out.trim();
}

for (const backend of backends()) {
  describe(`many processes on one archive: ${backend.name}`, () => {
    let a: ArchivePort;
    beforeAll(async () => {
      a = await backend.open();
    }, 180_000);
    afterAll(() => backend.cleanup());

    test(`${WRITERS} writers x ${PER_WRITER} messages to one session: none lost or duplicated, the same read-back everywhere`, async () => {
      const names = Array.from({ length: WRITERS }, (_, i) => `w${i}`);
      await Promise.all(
        names.map((n) => finished(worker(backend.name, backend.target(), ["write", n, String(PER_WRITER)]))),
      );
      const readers = [a, ...(await Promise.all(names.slice(1).map(() => backend.reopen())))];
      const views = await Promise.all(readers.map((r) => r.listMessages("shared")));
      const ids = views[0]!.map((m) => m.id);
      expect(ids.length).toBe(WRITERS * PER_WRITER);
      expect(new Set(ids).size).toBe(WRITERS * PER_WRITER);
      for (const n of names)
        expect(ids.filter((id) => id.startsWith(`${n}-`))).toEqual(
          Array.from({ length: PER_WRITER }, (_, i) => `${n}-${i}`),
        );
      for (const v of views.slice(1)) expect(v).toEqual(views[0]!);
      expect((await a.getSession("shared"))!.messageCount).toBe(WRITERS * PER_WRITER);
      const seqs = views[0]!.map((m) => m.seq);
      expect(seqs).toEqual([...seqs].sort((x, y) => (x < y ? -1 : 1)));
    }, 300_000);

    test("two daemons competing for a job lease never hold it at once", async () => {
      const rounds = 60;
      const held = await Promise.all(
        ["d1", "d2"].map((n) => finished(worker(backend.name, backend.target(), ["lease", n, String(rounds)]))),
      );
      const log = (await a.listMessages("lease-log")).map((m) => m.content);
      expect(log.length).toBe(2 * held.reduce((s, h) => s + Number(h), 0));
      for (let i = 0; i < log.length; i += 2) {
        expect(log[i]!.startsWith("in ")).toBe(true);
        expect(log[i + 1]).toBe(log[i]!.replace("in ", "out "));
      }
    }, 300_000);

    test("a dead daemon's lease expires and the other daemon takes the job", async () => {
      const ttlMs = 1500;
      const dead = worker(backend.name, backend.target(), ["hold", "dead", "0", String(ttlMs)]);
      const reader = dead.stdout.getReader();
      let line = "";
      while (!line.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) throw new Error("the holder exited early");
        line += new TextDecoder().decode(value);
      }
      const expiresAt = BigInt(line.trim());
      dead.kill(9);
      await dead.exited;
      expect((await a.leaseHolder("summary", "s"))?.holder ?? "dead").toBe("dead"); // still held (or just expired)
      let taken: Awaited<ReturnType<ArchivePort["acquireLease"]>>;
      const deadline = Date.now() + 60_000;
      while (!taken && Date.now() < deadline) {
        taken = await a.acquireLease("summary", "s", "alive", 30_000);
        if (!taken) await Bun.sleep(20);
      }
      expect(taken?.holder).toBe("alive");
      // taken only once the dead holder's lease had run out (the lease's clock: expiry minus its ttl is when it was set)
      expect(taken!.expiresAt - 30_000n * 1_000_000n >= expiresAt).toBe(true);
    }, 120_000);
  });
}

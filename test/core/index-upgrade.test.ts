import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { sessionToken } from "../../src/storage/sqlite/fts-upgrade.ts";
import { cli, openTemp, removeTempHomes, repoRoot, waitFor } from "../fixture/home.ts";
import { tryLockFile } from "../../src/shared/file-lock.ts";
import { upgradeUntilKilled } from "../fixture/killed-upgrade.ts";
import { toOldIndex } from "../fixture/old-schema.ts";

afterAll(removeTempHomes);

const NOW = 1_790_000_000_000_000_000n;
const TOPICS = ["deploy the server", "payment refund", "database backup", "error in the build", "kubernetes rollout"];

function fill(home: string, perSession: number): void {
  const { api } = openTemp({ home, now: () => NOW, env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" } });
  try {
    for (let round = 0; round < perSession; round += 10) {
      for (const s of ["alpha", "beta", "gamma"]) {
        const batch = Array.from({ length: 10 }, (_, i) => ({
          role: "user" as const,
          content: `${s} message ${round + i}: ${TOPICS[(round + i) % TOPICS.length]} note`,
          sendAt: NOW - BigInt(1000 - round - i) * 1_000_000_000n,
        }));
        api.add(s, batch);
      }
    }
  } finally {
    api.close();
  }
}

const searchIds = async (home: string, query: string, session?: string) => {
  const { api } = openTemp({ home, now: () => NOW, env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" } });
  try {
    return (await api.search({ query, session, limit: 50 })).hits.map((h) => h.message.id).sort();
  } finally {
    api.close();
  }
};

/**
 * Run `doctor --migrate --json` on an old-index copy of `home` and send Ctrl-C while the keyword step is under way:
 * once its cursor has moved, the home's writer lock is taken here, so the upgrade waits before its next step and
 * Ctrl-C finds it there. A run that finished its step before the lock was taken (a busy machine) is tried again.
 */
async function stopMigrateMidway(home: string): Promise<{ code: number; stdout: string }> {
  const lockPath = join(home, ".store", "write.lock");
  for (let attempt = 0; attempt < 5; attempt++) {
    toOldIndex(home);
    const proc = Bun.spawn(["bun", join(repoRoot, "src/index.ts"), "--home", home, "doctor", "--migrate", "--json"], {
      stdout: "pipe",
      stderr: "pipe",
    });
    const cursor = () => {
      const db = new Database(join(home, ".store", "history.db"), { readonly: true });
      try {
        const r = db.query("SELECT cursor FROM fts_upgrade").get() as { cursor: number } | null;
        return Number(r?.cursor ?? 0);
      } catch {
        return 0; // not made yet, or dropped at the end
      } finally {
        db.close();
      }
    };
    let release: (() => void) | undefined;
    try {
      await waitFor(() => cursor() > 0 || proc.exitCode !== null, 60_000, "the upgrade's first step");
      release = tryLockFile(lockPath);
      if (release && cursor() > 0) proc.kill("SIGINT");
    } finally {
      release?.();
    }
    const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    if (code === 130) return { code, stdout };
  }
  throw new Error("the upgrade finished before Ctrl-C every time");
}

describe("keyword index upgrade (session column)", () => {
  test("a new home starts with the session column", () => {
    const { api } = openTemp();
    try {
      expect(api.indexUpgrade()).toEqual({ done: true, copied: 0, total: 0, messages: 0 });
    } finally {
      api.close();
    }
  });

  test("a home made with the old index: same results before, during and after; resumes after a kill; add never waits for it", async () => {
    const { home } = openTemp();
    fill(home, 200);
    toOldIndex(home);
    const before = { s: await searchIds(home, "deploy server", "beta"), all: await searchIds(home, "payment") };
    expect(before.s.length).toBeGreaterThan(0);

    // A child runs the upgrade in small slow steps and is killed once it has made progress.
    await upgradeUntilKilled(home, { batch: 20, what: "upgrade progress" });

    const { api } = openTemp({ home, now: () => NOW, env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" } });
    try {
      const mid = api.indexUpgrade();
      expect(mid.done).toBe(false);
      expect(mid.copied).toBeGreaterThan(0);
      expect(mid.copied).toBeLessThan(mid.total);
      // Writes and searches go on with the old index meanwhile.
      api.add("beta", { role: "user", content: "late note: deploy the server again", sendAt: NOW });
      const late = (await api.search({ query: "deploy server", session: "beta", limit: 50 })).hits.map(
        (h) => h.message.id,
      );
      expect(late.length).toBe(before.s.length + 1);
      api.remove("alpha"); // its rows already copied into the index being built go too
      const r = await api.upgradeIndex({ batch: 50 });
      expect(r.done).toBe(true);
      expect(api.indexUpgrade().done).toBe(true);
      const after = (await api.search({ query: "deploy server", session: "beta", limit: 50 })).hits
        .map((h) => h.message.id)
        .sort();
      expect(after).toEqual([...late].sort());
      api.add("gamma", { role: "user", content: "after the upgrade: payment refund", sendAt: NOW });
      const gamma = await api.search({ query: "payment", session: "gamma", limit: 50 });
      expect(gamma.hits.some((h) => h.message.content.startsWith("after the upgrade"))).toBe(true);
      expect(gamma.hits.every((h) => h.message.session === "gamma")).toBe(true);
    } finally {
      api.close();
    }
    expect((await searchIds(home, "payment")).length).toBe(before.all.length);
    const db = new Database(join(home, ".store", "history.db"), { readonly: true });
    try {
      const names = (
        db.query("SELECT name FROM sqlite_master WHERE name LIKE 'messages_fts%' OR name = 'fts_upgrade'").all() as {
          name: string;
        }[]
      ).map((r) => r.name);
      expect(names).not.toContain("messages_fts_old");
      expect(names).not.toContain("messages_fts_next");
      expect(names).not.toContain("fts_upgrade");
      const left = db
        .query("SELECT count(*) AS n FROM messages_fts WHERE messages_fts MATCH ?")
        .get(`{sess}: ${sessionToken("alpha")}`) as { n: number };
      expect(Number(left.n)).toBe(0);
      const beta = db
        .query("SELECT count(*) AS n FROM messages_fts WHERE messages_fts MATCH ?")
        .get(`{sess}: ${sessionToken("beta")}`) as { n: number };
      expect(Number(beta.n)).toBe(201);
      const secure = db.query("SELECT v FROM messages_fts_config WHERE k = 'secure-delete'").get() as {
        v: number;
      } | null;
      expect(Number(secure?.v)).toBe(1);
    } finally {
      db.close();
    }
  }, 120_000);

  test("memvoy doctor --migrate upgrades an old home and says so", async () => {
    const { home } = openTemp();
    fill(home, 20);
    toOldIndex(home);
    // Pending is said, not counted as a problem: searches use the current index meanwhile.
    const check = await cli(["doctor"], { home });
    expect(check.code).toBe(0);
    expect(check.stdout).toContain("keyword index: an upgrade is pending (");
    const json = JSON.parse((await cli(["doctor", "--json"], { home })).stdout);
    expect(json.keywordIndex.upgraded).toBe(false);
    expect(json.ok).toBe(true);
    const r = await cli(["doctor", "--migrate"], { home });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    // The messages as the archive counts them, not the upgrade's steps over them.
    expect(r.stdout).toMatch(/^keyword index: upgrading 60 messages( \(\d+% done earlier\))?\n/);
    expect(r.stdout).toContain("keyword index: upgraded (60 messages");
    expect(r.stdout).not.toContain("pending");
    expect(JSON.parse((await cli(["doctor", "--json"], { home })).stdout).keywordIndex).toEqual({
      upgraded: true,
      percentDone: 100,
    });
    const again = await cli(["doctor", "--migrate"], { home });
    expect(again.stdout).toContain("keyword index: up to date");
  }, 60_000);

  test("the upgrade's progress counts the steps done before it, and the bar counts the archive's messages", async () => {
    const { home } = openTemp();
    fill(home, 20);
    toOldIndex(home); // the keyword step is to do again, the five after it stay done
    const { api } = openTemp({ home, now: () => NOW });
    const seen: [number, number][] = [];
    try {
      const state = api.indexUpgrade();
      expect(state.copied / state.total).toBeGreaterThan(0.8);
      await api.upgradeIndex({ batch: 10, pauseMs: 0, progress: (d, t) => seen.push([d, t]) });
    } finally {
      api.close();
    }
    expect(seen.length).toBeGreaterThan(0);
    for (const [d, t] of seen) expect(d / t).toBeGreaterThan(0.8);
    expect(seen.at(-1)![0]).toBe(seen.at(-1)![1]);
  }, 60_000);

  test("doctor --migrate --json stopped by Ctrl-C prints how far it got (exit 130), and a second run completes", async () => {
    const { home, api } = openTemp({ now: () => NOW, env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" } });
    try {
      for (let b = 0; b < 40; b++)
        api.add(
          `s${b % 4}`,
          Array.from({ length: 500 }, (_, i) => ({
            role: "user" as const,
            content: `note ${b}-${i}: ${TOPICS[i % TOPICS.length]}`,
            sendAt: NOW - BigInt(100_000 - b * 500 - i) * 1_000_000_000n,
          })),
        );
    } finally {
      api.close();
    }
    const stopped = await stopMigrateMidway(home);
    expect(stopped.code).toBe(130);
    const doc = JSON.parse(stopped.stdout);
    expect(doc).toMatchObject({ interrupted: true, keywordIndex: { upgraded: false } });
    expect(doc.keywordIndex.percentDone).toBeLessThan(100);
    const again = await cli(["doctor", "--migrate", "--json"], { home });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).keywordIndex).toEqual({ upgraded: true, percentDone: 100 });
  }, 300_000);

  test.skipIf(!Bun.which("script"))(
    "doctor --migrate on a terminal: a bar of the archive's messages that ends full",
    async () => {
      const { home } = openTemp();
      fill(home, 20);
      toOldIndex(home);
      const command = ["bun", join(repoRoot, "src/index.ts"), "--home", home, "doctor", "--migrate"]
        .map((a) => `'${a}'`)
        .join(" ");
      const out = Bun.spawnSync(["script", "-qec", command, "/dev/null"], { stdout: "pipe", stderr: "pipe" }).stdout;
      const bars = [...out.toString().matchAll(/\[([#.]+)\] (\d+)\/(\d+) messages/g)];
      expect(bars.length).toBeGreaterThan(0);
      for (const b of bars) expect(b[3]).toBe("60");
      const last = bars.at(-1)!;
      expect(last[2]).toBe("60");
      expect(last[1]).not.toContain(".");
      expect(out.toString()).toContain("keyword index: upgraded (60 messages");
    },
    60_000,
  );
});

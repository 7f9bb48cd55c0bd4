// The terminal UI on a shared archive (PostgreSQL + vectors on the S3 test server), under tmux: sessions,
// history, the three search modes and the summary come from the archive, and a message another host adds
// appears on screen by itself (the UI polls the archive's change stamp).
import { beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { openMemory as openLocalHome } from "../../src/app/open-memory.ts";
import { openMemory } from "../../src/lib.ts";
import { openPgSharedArchive } from "../../src/storage/postgres/pg-shared-archive.ts";
import { tempHome } from "../fixture/home.ts";
import { describePostgres } from "../fixture/postgres-server.ts";
import { sharedBackend, type SharedEnv } from "../fixture/shared-backend.ts";
import type { TmuxSession } from "../fixture/tmux.ts";
import { startTui } from "../fixture/tui-home.ts";

const describe = describePostgres();
const SUMMARY = {
  key_decisions: ["Do: SHARED retry the refund job nightly"],
  past_discussions: [],
  current_discussion: { topic: "Refunds", description: "The job is fixed.", perspectives: "", direction: "Watch it" },
};

describe("the terminal UI on a shared archive", () => {
  let env: SharedEnv;
  let url: string;
  let writer: string;
  let viewer: string;
  let tui: TmuxSession | undefined;
  const shared = sharedBackend({ beforeStop: () => tui?.kill() });

  beforeAll(async () => {
    env = await shared.env("tui");
    url = env.MEMVOY_ARCHIVE_URL;
    [writer, viewer] = [shared.home("tui"), shared.home("tui")];
    const api = openMemory({ home: writer, env });
    try {
      await api.add("beta-billing", [
        { role: "user", content: "Stripe webhooks arrive twice; how do we make them idempotent?" },
        { role: "assistant", content: "Store the event id with a unique index and skip duplicates." },
      ]);
      await api.add("alpha-deploy", { role: "user", content: "The rollback plan: flip the load balancer back." });
    } finally {
      await api.close();
    }
    // A summary as the embedded home writes it, stored as the archive's summary state.
    const local = tempHome();
    const home = openLocalHome({ home: local, env: {} });
    home.add("beta-billing", [{ role: "user", content: "x" }]);
    home.importSummary("beta-billing", SUMMARY);
    home.close();
    const dir = join(local, "sessions", "beta-billing");
    const archive = await openPgSharedArchive(url);
    const text = (name: string) => readFileSync(join(dir, name), "utf8");
    await archive.putSummaryState(
      "beta-billing",
      { summary: text("summary.json"), cursor: text(".summary_cursor") },
      BigInt(Date.now()) * 1_000_000n,
    );
    await archive.close();
  }, 60_000);

  test("sessions, history, search in every mode, the summary, and another host's message live", async () => {
    tui = startTui(viewer, { width: 110, height: 30, env });
    let s = await tui.waitFor("beta-billing", 30_000);
    expect(s).toContain("alpha-deploy");
    expect(s).toContain("2 sessions");
    // History of the selected session (the list is sorted by recent activity: alpha-deploy first).
    tui.keys("Down");
    s = await tui.waitFor("beta-billing · 2 msgs");
    expect(s).toContain("Stripe webhooks arrive twice");
    // Search: hybrid by default, then keyword and semantic.
    tui.type("/");
    await tui.waitFor("Search:");
    tui.type("idempotent");
    s = await tui.waitFor(/▶ beta-billing · [^\n]*· user/, 30_000);
    expect(s).toContain("mode hybrid");
    tui.keys("Tab");
    s = await tui.waitFor(/mode keyword[\s\S]*1 hit\b/, 30_000);
    expect(s).toContain("Stripe webhooks arrive twice");
    tui.keys("Tab");
    s = await tui.waitFor(/mode semantic[\s\S]*▶ beta-billing/, 30_000);
    tui.keys("Escape");
    await tui.waitForGone("Search:");
    // The summary viewer reads the archive's summary.
    tui.keys("C-s");
    s = await tui.waitFor("Do: SHARED retry the refund job nightly", 30_000);
    tui.keys("S");
    // Summarize now runs on the shared archive too (no model is configured here, so it ends in an error line).
    await tui.waitFor(/summarize beta-billing: |ANTHROPIC_API_KEY/, 30_000);
    tui.keys("Escape");
    await tui.waitForGone("Do: SHARED retry");
    // Another host writes: the message and the new session appear without a key.
    const api = openMemory({ home: writer, env });
    try {
      await api.add("beta-billing", { role: "assistant", content: "LIVE: the refund job is fixed" });
      s = await tui.waitFor("beta-billing · 3 msgs", 30_000);
      s = await tui.waitFor("LIVE: the refund job is fixed", 30_000);
      await api.add("gamma-new", { role: "user", content: "a session made on another host" });
      s = await tui.waitFor("gamma-new", 30_000);
      expect(s).toContain("3 sessions");
      expect(s).toMatch(/beta-billing · 3 msgs/); // the selection holds
    } finally {
      await api.close();
    }
  }, 180_000);

  test("a home that does not exist: the archive's sessions and summary show, and nothing is created", async () => {
    tui?.kill();
    const missing = join(tempHome(), "no-such", "memvoy");
    const vectors = {
      MEMVOY_VECTORS_URI: `s3://${shared.s3.bucket}/tui`,
      MEMVOY_VECTORS_ENDPOINT: shared.s3.endpoint,
      MEMVOY_VECTORS_ALLOW_HTTP: "true",
    };
    tui = startTui(missing, { width: 110, height: 30, env: { ...env, ...vectors } });
    await tui.waitFor("gamma-new", 30_000); // the list by recent activity: gamma-new (the test above), beta-billing
    tui.keys("Down");
    await tui.waitFor(/beta-billing · \d+ msgs/, 30_000);
    tui.keys("C-s");
    await tui.waitFor("Do: SHARED retry the refund job nightly", 30_000);
    tui.keys("Escape");
    await tui.waitForGone("Do: SHARED retry");
    tui.keys("q");
    expect((await tui.exited()).code).toBe(0);
    expect(existsSync(join(missing, ".."))).toBe(false);
  }, 120_000);
});

// The summary viewer under tmux: sections, cursor, last run and tokens; S summarizes now against the fake
// Anthropic API with progress and the outcome on the status row; an import shows as such.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { openMemory } from "../../src/app/open-memory.ts";
import { startFakeAnthropic, type FakeAnthropic } from "../fixture/fake-anthropic.ts";
import { removeTempHomes } from "../fixture/home.ts";
import type { TmuxSession } from "../fixture/tmux.ts";
import { makeHome, startTui, T } from "../fixture/tui-home.ts";

let fake: FakeAnthropic;
let tui: TmuxSession | undefined;
beforeAll(async () => {
  fake = await startFakeAnthropic();
});
afterEach(() => {
  tui?.kill();
  fake.reset();
});
afterAll(async () => {
  await fake.stop();
  removeTempHomes();
});

const answer = {
  key_decisions: ["Do: keep the previous image tagged for rollbacks", "Don't: deploy on Fridays"],
  past_discussions: [
    {
      topic: "Build caching",
      description: "Layer caching cut builds to four minutes.",
      direction: "Keep it",
      last_discussed: "2026-11-29 10:00",
    },
  ],
  current_discussion: {
    topic: "Canary rollout",
    description: "Ten percent first, then everyone.",
    perspectives: "ann: cautious; bot: ready",
    direction: "Roll out on Monday",
  },
};

describe("summary viewer", () => {
  test(
    "S on another session while a run is under way names the session being summarized",
    async () => {
      const home = await makeHome();
      let release!: () => void;
      fake.push({ until: new Promise((r) => (release = () => r(undefined))), then: { json: answer, tag: "summary" } });
      tui = startTui(home, { env: { ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url } });
      await tui.waitFor("alpha-deploy");
      tui.keys("C-s");
      await tui.waitFor("Summary · alpha-deploy");
      tui.keys("S");
      await tui.waitFor(/summarizing alpha-deploy: (chunk 1\/1|\d+ new messages)/);
      tui.keys("Escape");
      await tui.waitFor("type to filter");
      tui.type("beta");
      await tui.waitFor("filter: beta");
      tui.keys("C-s");
      let s = await tui.waitFor("Summary · beta-billing");
      expect(s).toContain("S summarize now (summarizing alpha-deploy)");
      tui.keys("S");
      s = await tui.waitFor("already summarizing alpha-deploy… (S again for beta-billing once it is done)");
      expect(s).not.toContain("already summarizing beta-billing");
      release();
      await tui.waitFor("summarize alpha-deploy: ok");
    },
    T,
  );

  test(
    "Ctrl-S with no summary says so; S summarizes now with progress, then shows every section",
    async () => {
      const home = await makeHome();
      fake.push({ delayMs: 800, then: { json: answer, tag: "summary" } });
      tui = startTui(home, { env: { ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url } });
      await tui.waitFor("alpha-deploy");
      tui.keys("C-s");
      let s = await tui.waitFor("Summary · alpha-deploy");
      expect(s).toContain("No summary yet.");
      expect(s).toContain("last run: never");
      tui.keys("S");
      s = await tui.waitFor(/summarizing alpha-deploy: (chunk 1\/1|\d+ new messages)/);
      s = await tui.waitFor("summarize alpha-deploy: ok");
      expect(s).toMatch(/summarize alpha-deploy: ok, 1\/1 chunks, [\d,]+ tokens/);
      s = await tui.waitFor("Key decisions (2)");
      expect(s).toContain("• Do: keep the previous image tagged for rollbacks");
      expect(s).toContain("• Don't: deploy on Fridays");
      expect(s).toContain("Past discussions (1)");
      expect(s).toContain("Build caching  (2026-11-29 10:00 UTC)");
      expect(s).toContain("→ Keep it");
      expect(s).toContain("Current discussion");
      expect(s).toContain("Canary rollout");
      expect(s).toMatch(/cursor \d{4}-\d\d-\d\d \d\d:\d\d:\d\d/);
      expect(s).toMatch(/last run \d{4}-\d\d-\d\d \d\d:\d\d:\d\d · ok · 1\/1 chunks/);
      expect(s).toMatch(
        new RegExp(
          `tokens used ${fake.inputTokens.toLocaleString("en-US")} in · ${fake.outputTokens.toLocaleString("en-US")} out`,
        ),
      );
      // scrolling reaches the token usage at the end
      tui.keys("End");
      s = await tui.waitFor("Token usage");
      tui.keys("Escape");
      s = await tui.waitFor("type to filter");
      expect(s).toMatch(/alpha-deploy\s+40\s+\S+ yes/);
    },
    T,
  );

  test(
    "a failed run says why on the status row and changes nothing",
    async () => {
      const home = await makeHome();
      fake.push({ status: 401, type: "authentication_error", message: "invalid x-api-key" });
      tui = startTui(home, { env: { ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url } });
      await tui.waitFor("alpha-deploy");
      tui.keys("Enter");
      await tui.waitFor("Step 39");
      tui.keys("s"); // from the history pane
      await tui.waitFor("No summary yet.");
      tui.keys("S");
      const s = await tui.waitFor(/summarize alpha-deploy: failed/);
      expect(s).toContain("No summary yet.");
    },
    T,
  );

  test(
    "an imported summary shows with its cursor and an 'imported' run that used no tokens",
    async () => {
      const home = await makeHome();
      const api = openMemory({ home, env: {} });
      api.importSummary("beta-billing", { ...answer, past_discussions: [] });
      api.close();
      tui = startTui(home);
      await tui.waitFor("alpha-deploy");
      tui.type("beta");
      await tui.waitFor("filter: beta");
      tui.keys("C-s");
      const s = await tui.waitFor("Summary · beta-billing");
      expect(s).toMatch(/last run [^\n]* · imported/);
      expect(s).toContain("tokens used 0 in · 0 out");
      expect(s).toContain("Past discussions (0)");
      expect(s).toContain("Do: keep the previous image tagged");
    },
    T,
  );
});

// The summary viewer's lines: every field wraps within the pane, a labelled one (perspectives) too.
import { afterAll, expect, test } from "bun:test";
import { openMemory } from "../../src/app/open-memory.ts";
import { summaryLines } from "../../src/tui/state/summary-lines.ts";
import { stringWidth } from "../../src/tui/text/char-width.ts";
import { startFakeAnthropic } from "../fixture/fake-anthropic.ts";
import { removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

test("a long perspectives line wraps within the width after its label: no word is cut off", () => {
  const api = openMemory({ home: tempHome(), env: {} });
  const perspectives =
    "maya wants it on the API service first; the assistant suggests one afternoon of pairing before the rollout";
  try {
    api.add("s", { role: "user", content: "hello" });
    api.importSummary("s", {
      key_decisions: ["Do: ship the canary to ten percent of the traffic first, then everyone on Monday morning"],
      past_discussions: [],
      current_discussion: { topic: "Canary rollout", description: "", perspectives, direction: "Roll out Monday" },
    });
    for (const width of [40, 60, 78]) {
      const lines = summaryLines(api.summary("s"), width).map((l) => l.text);
      for (const l of lines) expect(stringWidth(l)).toBeLessThanOrEqual(width);
      const at = lines.findIndex((l) => l.startsWith("  perspectives: "));
      const shown = [lines[at]!.slice("  perspectives: ".length), ...lines.slice(at + 1, at + 4).map((l) => l.trim())];
      expect(shown.join(" ")).toStartWith(perspectives);
    }
  } finally {
    api.close();
  }
});

test("a failed run's error wraps within the width: the reason is not cut off", async () => {
  const fake = await startFakeAnthropic();
  fake.push({ status: 401, type: "authentication_error", message: "invalid x-api-key" });
  const api = openMemory({
    home: tempHome(),
    env: { ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url },
    drain: "off",
  });
  try {
    api.add("s", [
      { role: "user", content: "Shall we roll out the canary on Monday?" },
      { role: "assistant", content: "Yes, to ten percent first." },
    ]);
    await api.summarize("s");
    const view = api.summary("s");
    expect(view.lastRun?.error).toContain("HTTP 401");
    const lines = summaryLines(view, 60).map((l) => l.text);
    for (const l of lines) expect(stringWidth(l)).toBeLessThanOrEqual(60);
    expect(lines.join(" ").replace(/\s+/g, " ")).toContain(view.lastRun!.error!.replace(/\s+/g, " "));
  } finally {
    api.close();
    await fake.stop();
  }
});

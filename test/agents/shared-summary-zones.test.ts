// The summary cursor in shared mode across time zones: .summary_cursor is the local time of the last summarized
// message on every host (the spec's format, as Agenvoy reads it), so hosts in different zones agree on the
// instant, and a run on any host continues from the exact position.
import { beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic, type FakeAnthropic, type FakeRequest } from "../fixture/fake-anthropic.ts";
import { cli } from "../fixture/home.ts";
import { describePostgres } from "../fixture/postgres-server.ts";
import { sharedBackend } from "../fixture/shared-backend.ts";
import { current, pad, summaryStep } from "../fixture/summary-home.ts";

const describe = describePostgres();

function answer(req: FakeRequest) {
  const topic = /(\w+) question 0/.exec(req.messages[0]?.content ?? "")?.[1] ?? "talk";
  return summaryStep({ key_decisions: [`Do: remember ${topic}`], current_discussion: current(topic) });
}

/** `n` exchanges two seconds apart from `start` (RFC 3339 UTC), as JSONL for `add`. */
function exchanges(tag: string, n: number, start: number): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const at = start + 2000 * i;
    const iso = (ms: number) => new Date(ms).toISOString();
    lines.push(JSON.stringify({ role: "user", content: pad(`${tag} question ${i}`, 120), sendAt: iso(at) }));
    lines.push(JSON.stringify({ role: "assistant", content: pad(`${tag} answer ${i}`, 160), sendAt: iso(at + 1000) }));
  }
  return lines.join("\n");
}

describe("the summary cursor on hosts in different time zones", () => {
  let fake: FakeAnthropic;
  const shared = sharedBackend({ beforeStop: () => fake?.stop() });
  beforeAll(async () => {
    fake = await startFakeAnthropic();
  });

  test("each host's .summary_cursor and `summary` give the last summarized message's time in its own zone", async () => {
    fake.respond((req) => answer(req));
    const base = {
      ...(await shared.env("zones")),
      ANTHROPIC_API_KEY: fake.apiKey,
      ANTHROPIC_BASE_URL: fake.url,
      MEMVOY_SUMMARY_MAX_RETRIES: "0",
    };
    const taipei = { home: shared.home("zones"), env: { ...base, TZ: "Asia/Taipei" } };
    const newYork = { home: shared.home("zones"), env: { ...base, TZ: "America/New_York" } };
    const cursorFile = (h: { home: string }) =>
      readFileSync(join(h.home, "sessions", "team", ".summary_cursor"), "utf8");

    // The last message at 2026-05-01 09:00:05 UTC: 17:00:05 in Taipei, 05:00:05 in New York (EDT).
    const start = Date.UTC(2026, 4, 1, 9, 0, 0);
    expect((await cli(["add", "team"], { ...taipei, stdin: exchanges("alpha", 3, start) })).code).toBe(0);
    const run = await cli(["summarize", "team"], taipei);
    expect(run.stderr).toBe("");
    expect(cursorFile(taipei)).toBe("2026-05-01 17:00:05");

    const shown = await cli(["summary", "team"], newYork);
    expect(shown.code).toBe(0);
    expect(cursorFile(newYork)).toBe("2026-05-01 05:00:05");
    expect(shown.stdout).toContain("2026-05-01 05:00:05");
    expect(shown.stdout).toContain("exact position");

    // New York continues from the exact position: the next call holds only the new messages.
    const later = Date.UTC(2026, 4, 1, 10, 0, 0);
    expect((await cli(["add", "team"], { ...newYork, stdin: exchanges("beta", 2, later) })).code).toBe(0);
    expect((await cli(["summarize", "team"], newYork)).code).toBe(0);
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1]!.messages[0]!.content).not.toContain("alpha question");
    expect(fake.requests[1]!.messages[0]!.content).toContain("beta question 0");
    expect(cursorFile(newYork)).toBe("2026-05-01 06:00:03");
    expect((await cli(["context", "team"], taipei)).code).toBe(0);
    expect(cursorFile(taipei)).toBe("2026-05-01 18:00:03");
    expect((await cli(["summarize", "team"], taipei)).stdout).toContain("up-to-date");
  }, 120_000);
});

// Homes for the TUI tests, written through the library (the real write path), and a TUI launcher under tmux.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { openMemory } from "../../src/app/open-memory.ts";
import { repoRoot, tempHome } from "../helpers/home.ts";
import { TmuxSession, type TmuxOptions } from "../helpers/tmux.ts";

const DAY = 86_400_000;
/** Per-test timeout for tests that drive a terminal. */
export const T = 60_000;
export const ns = (ms: number) => BigInt(Math.round(ms)) * 1_000_000n;

/**
 * alpha-deploy: 40 messages today (history.json kept small so the oldest are archived), with senders;
 * beta-billing: 4 messages 3 days ago; zh-trip: Traditional Chinese, 10 days ago;
 * old-notes: 200 days ago, the only one saying "quarterly".
 */
export async function makeHome(): Promise<string> {
  const home = tempHome("memvoy-tui-");
  writeFileSync(join(home, "config.toml"), "[limits]\nmax_history_bytes = 4096\n");
  const api = openMemory({ home, env: {} });
  const now = Date.now();
  try {
    api.add("old-notes", [
      { role: "user", content: "Draft the quarterly report outline.", sendAt: ns(now - 200 * DAY) },
      { role: "assistant", content: "Revenue, churn, hiring, and the roadmap.", sendAt: ns(now - 200 * DAY + 1000) },
    ]);
    api.add("zh-trip", [
      { role: "user", content: "我們下個月去京都，請幫我排三天的行程。", sendAt: ns(now - 10 * DAY) },
      { role: "assistant", content: "第一天：清水寺、二年坂、祇園。第二天：嵐山竹林與天龍寺。第三天：伏見稻荷大社。", sendAt: ns(now - 10 * DAY + 1000) },
    ]);
    api.add("beta-billing", [
      { role: "user", content: "Stripe webhooks arrive twice; how do we make them idempotent?", sendAt: ns(now - 3 * DAY) },
      { role: "assistant", content: "Store the event id with a unique index and skip duplicates.", sendAt: ns(now - 3 * DAY + 1000) },
      { role: "user", content: "And the invoice migration?", sendAt: ns(now - 3 * DAY + 2000) },
      { role: "assistant", content: "Run it in batches of 500 behind a feature flag.", sendAt: ns(now - 3 * DAY + 3000) },
    ]);
    const alpha = Array.from({ length: 40 }, (_, i) => ({
      role: i % 2 === 0 ? ("user" as const) : ("assistant" as const),
      sender: i % 2 === 0 ? "ann" : "bot",
      sendAt: ns(now - (40 - i) * 60_000),
      content:
        i === 17
          ? "The rollback plan: keep the previous image tagged, flip the load balancer back, then page the on-call. Checklist item seventeen."
          : `Step ${i}: deploy pipeline note number ${i}, covering build caching, canary rollout and the smoke tests that run afterwards.`,
    }));
    api.add("alpha-deploy", alpha);
    await api.recordError({ tool: "bash", error: "jq: command not found", cause: "jq is not installed in the CI image", fix: "apt-get install -y jq, or parse the JSON with python3 -c", keywords: ["ci", "jq"] });
    await api.recordError({ tool: "http_get", error: "ETIMEDOUT connecting to api.internal:443 after 30000 ms", fix: "Use the VPN host name api.corp.example and retry with backoff", outcome: "resolved" });
    await api.recordError({ tool: "sql", error: "duplicate key value violates unique constraint \"invoices_pkey\"", fix: "Upsert with ON CONFLICT (id) DO NOTHING", outcome: "failed" });
  } finally {
    api.close();
  }
  return home;
}

/** The TUI (bun src/index.ts --home HOME) in a tmux pane. */
export function startTui(home: string, o: TmuxOptions & { argv?: string[] } = {}): TmuxSession {
  return TmuxSession.start(o.argv ?? [process.execPath, join(repoRoot, "src/index.ts"), "--home", home], o);
}

// Summarizing 1M characters of new history against the fake Messages API (it counts calls and tokens):
// calls = ceil(1M / chunk_chars) ± 1, and the input tokens sent stay within 10% of what must be sent:
// the new text + the previous summary of each call + the fixed prompt of each call.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openMemory } from "../src/app/open-memory.ts";
import { countChars } from "../src/memory/summary/chunking.ts";
import { summarySystemPrompt, summaryUserPrompt } from "../src/memory/summary/summary-call.ts";
import { emptySummary, type Summary } from "../src/memory/summary/summary-types.ts";
import { estimateTokens, startFakeAnthropic } from "../test/fixture/fake-anthropic.ts";
import { sessionStream, type CorpusMessage } from "./lib/corpus.ts";
import { emitRows, log, quick, type BenchRow } from "./lib/report.ts";

const CHUNK_CHARS = 32_000;
const TOTAL_CHARS = quick ? 200_000 : 1_000_000;
const T0 = Date.UTC(2026, 4, 1, 9, 0, 0);

/** A full-size summary (8 decisions, 8 topics, a current topic), as a model would keep returning. */
function answerFor(call: number): Summary {
  const words = (n: number, tag: string) =>
    Array.from({ length: n }, (_, i) => `${tag}${(i * 7 + call) % 97}`).join(" ");
  return {
    key_decisions: Array.from({ length: 8 }, (_, i) => `Do: ${words(9, `rule${i}-`)}`),
    past_discussions: Array.from({ length: 8 }, (_, i) => ({
      topic: `topic ${i} ${words(3, "t")}`,
      description: `${words(18, "d")}.`,
      direction: `${words(10, "x")}.`,
      last_discussed: `2026-05-01 ${String(9 + i).padStart(2, "0")}:00`,
    })),
    current_discussion: {
      topic: `current ${call}`,
      description: `${words(20, "c")}.`,
      perspectives: `${words(12, "p")}.`,
      direction: `${words(10, "n")}.`,
    },
  };
}

interface Scenario {
  name: string;
  /** Next message of the conversation. */
  next: () => CorpusMessage;
}

async function run(s: Scenario): Promise<BenchRow[]> {
  const fake = await startFakeAnthropic();
  const home = mkdtempSync(join(tmpdir(), "memvoy-bench-summary-"));
  const api = openMemory({
    home,
    env: {
      ANTHROPIC_API_KEY: fake.apiKey,
      ANTHROPIC_BASE_URL: fake.url,
      MEMVOY_SUMMARY_CHUNK_CHARS: String(CHUNK_CHARS),
    },
    drain: "off",
  });
  try {
    // The history: messages until TOTAL_CHARS characters, ending on an assistant reply.
    let chars = 0;
    let i = 0;
    const batch: { role: "user" | "assistant"; content: string; sendAt: bigint }[] = [];
    while (chars < TOTAL_CHARS || batch.at(-1)?.role !== "assistant") {
      const m = s.next();
      const role = i % 2 === 0 ? "user" : "assistant";
      batch.push({ role, content: m.content, sendAt: BigInt(T0 + i * 20_000) * 1_000_000n });
      chars += countChars(m.content);
      i++;
    }
    for (let k = 0; k < batch.length; k += 5000) api.add("bench", batch.slice(k, k + 5000));

    const answers: Summary[] = [];
    fake.respond((req) => {
      const a = answerFor(req.n);
      answers.push(a);
      return { json: a, tag: "summary" };
    });
    const started = performance.now();
    const report = (await api.summarize("bench")).sessions[0]!;
    const ms = performance.now() - started;
    if (report.outcome !== "ok") throw new Error(`summary run ended ${report.outcome}: ${report.error ?? ""}`);

    // What must be sent: per call the fixed prompt and the previous summary, plus the new text once.
    const n = fake.calls;
    const fixedSystem = countChars(summarySystemPrompt(emptySummary(), {}, "auto")) - 2; // without the "{}"
    let mustChars = chars;
    for (let c = 1; c <= n; c++) {
      const previous = c === 1 ? "{}" : JSON.stringify(answers[c - 2], null, 2);
      mustChars += fixedSystem + countChars(previous) + countChars(summaryUserPrompt({ parts: [], chars: 0 }, c, n));
    }
    const mustTokens = estimateTokens("x".repeat(mustChars));
    const sent = fake.inputTokens;
    const ratio = sent / mustTokens;
    const expected = Math.ceil(chars / CHUNK_CHARS);
    log(
      `summary (${s.name}): ${batch.length} messages, ${chars.toLocaleString("en-US")} characters -> ${n} calls in ${(ms / 1000).toFixed(2)} s; input tokens ${sent.toLocaleString("en-US")} vs ${mustTokens.toLocaleString("en-US")} needed`,
    );
    const label = `summarize ${(chars / 1e6).toFixed(2)}M chars (${s.name})`;
    return [
      { name: `${label}: LLM calls`, value: String(n), target: `${expected} ± 1`, ok: Math.abs(n - expected) <= 1 },
      {
        name: `${label}: input tokens / (new text + previous summaries + fixed prompts)`,
        value: `${sent.toLocaleString("en-US")} / ${mustTokens.toLocaleString("en-US")} = ${ratio.toFixed(3)}`,
        target: "<= 1.10",
        ok: ratio <= 1.1,
      },
      { name: `${label}: wall time against an instant fake`, value: `${(ms / 1000).toFixed(2)} s` },
    ];
  } finally {
    api.close();
    await fake.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

const short = sessionStream(11);
const long = sessionStream(12);
let turn = 0;
const rows = [
  ...(await run({ name: "~200-character messages", next: short })),
  // User messages of ~200 characters, assistant replies of ~1,000.
  ...(await run({
    name: "replies ~5x longer",
    next: () =>
      turn++ % 2 === 0
        ? long()
        : { role: "assistant", content: Array.from({ length: 5 }, () => long().content).join(" ") },
  })),
];
emitRows(rows);

// Shared setup for the summary tests: a temp home opened against the fake Messages API, scripted
// conversations with fixed times, and summary answers.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openMemory, type HomeMemory } from "../../src/app/open-memory.ts";
import { startFakeAnthropic, type FakeAnthropic, type FakeStep } from "../helpers/fake-anthropic.ts";

export interface Setup {
  home: string;
  api: HomeMemory;
  fake: FakeAnthropic;
  env: Record<string, string>;
  /** Open the same home again (e.g. with other settings). */
  reopen(extraEnv?: Record<string, string>): HomeMemory;
  close(): Promise<void>;
}

/** A temp home whose ANTHROPIC_* point at a fresh fake; `env` adds MEMVOY_* settings. */
export async function setup(env: Record<string, string> = {}): Promise<Setup> {
  const fake = await startFakeAnthropic();
  const home = mkdtempSync(join(tmpdir(), "memvoy-summary-"));
  const base = { ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url, ...env };
  const opened: HomeMemory[] = [];
  const open = (extra: Record<string, string> = {}) => {
    const api = openMemory({ home, env: { ...base, ...extra }, drain: "off" });
    opened.push(api);
    return api;
  };
  return {
    home,
    api: open(),
    fake,
    env: base,
    reopen: open,
    async close() {
      for (const a of opened) a.close();
      await fake.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

export const T0 = Date.UTC(2026, 4, 1, 9, 0, 0);

/** `n` exchanges (user then assistant), one second apart from `startMs`, with text of the given sizes. */
export function addExchanges(api: HomeMemory, session: string, n: number, o: { userChars?: number; replyChars?: number; startMs?: number; stepMs?: number; tag?: string } = {}): void {
  const { userChars = 200, replyChars = 300, startMs = T0, stepMs = 1000, tag = "x" } = o;
  const messages = [];
  for (let i = 0; i < n; i++) {
    const at = BigInt(startMs + 2 * i * stepMs) * 1_000_000n;
    messages.push({ role: "user" as const, content: pad(`${tag} question ${i}`, userChars), sendAt: at });
    messages.push({ role: "assistant" as const, content: pad(`${tag} answer ${i}`, replyChars), sendAt: at + BigInt(stepMs) * 1_000_000n });
  }
  api.add(session, messages);
}

export function pad(text: string, length: number): string {
  return (text + " " + "lorem ipsum ".repeat(Math.ceil(length / 12))).slice(0, length);
}

export interface SummaryShape {
  key_decisions?: string[];
  past_discussions?: { topic: string; description: string; direction: string; last_discussed: string }[];
  current_discussion?: { topic: string; description: string; perspectives: string; direction: string };
}

export function current(topic: string) {
  return { topic, description: `about ${topic}`, perspectives: "", direction: "" };
}

/** A scripted summary answer inside <summary> tags; missing keys are filled with empty values. */
export function summaryStep(s: SummaryShape): FakeStep {
  return { json: { key_decisions: [], past_discussions: [], current_discussion: current(""), ...s }, tag: "summary" };
}

export function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, "utf8"));
}

export function readText(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, "utf8") : undefined;
}

/** The transcript part of a summary request (inside <conversation>). */
export function transcriptOf(userMessage: string): string {
  const m = /<conversation>\n([\s\S]*)\n<\/conversation>/.exec(userMessage);
  if (!m) throw new Error("no <conversation> block in the request");
  return m[1]!;
}

/** Messages in a transcript: `when` is "YYYY-MM-DD HH:MM" from the day line and the message's time. */
export function transcriptEntries(transcript: string): { when: string; role: string; text: string }[] {
  const out: { when: string; role: string; text: string }[] = [];
  const re = /^(?:== (\d{4}-\d{2}-\d{2}) UTC ==\n)?\[(\d{2}:\d{2}) (user|assistant)(?: \([^)]*\))?\] /gm;
  const heads = [...transcript.matchAll(re)];
  let day = "";
  heads.forEach((h, i) => {
    if (h[1]) day = h[1];
    const start = h.index! + h[0].length;
    const end = i + 1 < heads.length ? heads[i + 1]!.index! - 2 : transcript.length;
    out.push({ when: `${day} ${h[2]}`, role: h[3]!, text: transcript.slice(start, end) });
  });
  return out;
}

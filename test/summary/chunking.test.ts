// Chunking on its own: the limit counts message text in code points, cuts fall only after an assistant
// message, an exchange too long for one chunk is shortened, trailing questions wait for their answer.
import { expect, test } from "bun:test";
import type { StoredMessage } from "../../src/shared/message.ts";
import { countChars, planChunks, shorten, splitWaiting } from "../../src/memory/summary/chunking.ts";

let seq = 0n;
function msg(role: "user" | "assistant", content: string): StoredMessage {
  seq++;
  return { seq, id: `m${seq}`, session: "s", role, content, sendAt: seq * 1_000_000_000n, recent: true };
}
const text = (n: number, c = "a") => c.repeat(n);

test("characters are code points", () => {
  expect(countChars("abc")).toBe(3);
  expect(countChars("😀😀")).toBe(2);
  expect(countChars("中文")).toBe(2);
  expect(countChars("\ud800x")).toBe(2);
});

test("chunks stay within the limit and end on an assistant message", () => {
  const messages: StoredMessage[] = [];
  for (let i = 0; i < 40; i++) {
    messages.push(msg("user", text(50 + ((i * 37) % 200))));
    messages.push(msg("assistant", text(100 + ((i * 53) % 400))));
    if (i % 7 === 0) messages.push(msg("assistant", text(120)));
  }
  const chunks = planChunks(messages, 1000);
  expect(chunks.length).toBeGreaterThan(5);
  for (const c of chunks) {
    expect(c.chars).toBeLessThanOrEqual(1000);
    expect(c.chars).toBe(c.parts.reduce((n, p) => n + countChars(p.text), 0));
    expect(c.parts.at(-1)!.message.role).toBe("assistant");
  }
  expect(chunks.flatMap((c) => c.parts.map((p) => p.message))).toEqual(messages);
});

test("an exchange longer than the limit is shortened to fit, keeping head and tail", () => {
  const q = msg("user", "Q" + text(3000, "q") + "END");
  const a = msg("assistant", text(100, "r"));
  const [chunk, ...rest] = planChunks([q, a], 1000);
  expect(rest).toEqual([]);
  expect(chunk!.chars).toBeLessThanOrEqual(1000);
  expect(chunk!.parts[0]!.truncated).toBe(true);
  expect(chunk!.parts[0]!.text.startsWith("Qqq")).toBe(true);
  expect(chunk!.parts[0]!.text.endsWith("qEND")).toBe(true);
  expect(chunk!.parts[0]!.text).toContain("characters left out");
  expect(chunk!.parts[1]!).toEqual({ message: a, text: a.content, truncated: false });
  expect(countChars(shorten(text(5000), 1000))).toBeLessThanOrEqual(1000);
  expect(countChars(shorten(text(5000), 10))).toBeLessThanOrEqual(10);
});

test("trailing user messages wait for their answer", () => {
  const m = [msg("user", "a"), msg("assistant", "b"), msg("user", "c"), msg("user", "d")];
  expect(splitWaiting(m)).toEqual({ ready: m.slice(0, 2), waiting: m.slice(2) });
  expect(splitWaiting(m.slice(2))).toEqual({ ready: [], waiting: m.slice(2) });
});

test("the transcript: a line per UTC day, then [HH:MM author] before each message", async () => {
  const { renderTranscript, renderMessage } = await import("../../src/memory/summary/transcript.ts");
  const at = (iso: string) => BigInt(Date.parse(iso)) * 1_000_000n;
  const a = { ...msg("user", "late question"), sendAt: at("2026-05-01T23:59:30Z"), sender: "ann" };
  const b = { ...msg("assistant", "answer\nwith two lines"), sendAt: at("2026-05-02T00:00:10Z") };
  const c = { ...msg("user", "no time"), sendAt: 0n };
  expect(renderTranscript([a, b, c].map((m) => ({ message: m, text: m.content })))).toBe(
    "== 2026-05-01 UTC ==\n[23:59 user (ann)] late question\n\n== 2026-05-02 UTC ==\n[00:00 assistant] answer\nwith two lines\n\n== date unknown ==\n[--:-- user] no time",
  );
  expect(renderMessage(b, "short")).toBe("[2026-05-02 00:00 assistant] short");
});

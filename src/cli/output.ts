// Writing results: one JSON document with --json, readable text otherwise; colour only on a TTY without NO_COLOR.
import type { StoredMessage } from "../shared/message.ts";
import { nsToLocalSeconds } from "../shared/time.ts";
import { stdoutIsTTY, writeOut } from "../shared/stdout.ts";
import { lineText } from "../shared/terminal-text.ts";
export { messageJson } from "../app/api/json-shapes.ts";

export function useColor(stream?: { isTTY?: boolean }): boolean {
  return (stream ? !!stream.isTTY : stdoutIsTTY()) && !process.env.NO_COLOR && process.env.TERM !== "dumb";
}

const paint = (code: string) => (s: string) => (useColor() ? `\x1b[${code}m${s}\x1b[0m` : s);
export const bold = paint("1");
export const dim = paint("2");
export const cyan = paint("36");
export const yellow = paint("33");

/** A count with its noun: "1 session", "2 sessions". */
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function printJson(value: unknown): void {
  writeOut(jsonText(value) + "\n");
}

const bigintAsString = (_k: string, v: unknown) => (typeof v === "bigint" ? v.toString() : v);

/**
 * The document as JSON, a bigint as its digits. Without a replacer the engine's native serializer runs (a
 * replacer is a JS call per value): it throws a TypeError at the first bigint, and only then is the replacer used.
 */
function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2);
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
  }
  return JSON.stringify(value, bigintAsString, 2);
}

export function println(text = ""): void {
  writeOut(text + "\n");
}

export function messageHeader(m: StoredMessage): string {
  const who = m.sender ? ` · ${lineText(m.sender)}` : "";
  return dim(`[${nsToLocalSeconds(m.sendAt)} · ${m.role}${who}]`);
}

/** Mark highlight ranges: bold+yellow on a colour terminal, [brackets] otherwise. */
export function highlight(text: string, ranges: readonly [number, number][]): string {
  let out = "";
  let at = 0;
  for (const [s, e] of ranges) {
    out += text.slice(at, s);
    out += useColor() ? `\x1b[1;33m${text.slice(s, e)}\x1b[0m` : `[${text.slice(s, e)}]`;
    at = e;
  }
  return out + text.slice(at);
}

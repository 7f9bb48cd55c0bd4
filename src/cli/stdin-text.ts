// stdin read whole as text, for an option given as "-": bytes that are not UTF-8 are refused, and so is a folder.
import { fstatSync } from "node:fs";
import { StdinInputError } from "./usage-errors.ts";

const utf8 = new TextDecoder("utf-8", { fatal: true });

export async function stdinText(command: string): Promise<string> {
  if (fstatSync(0).isDirectory()) throw new StdinInputError({ command, problem: "folder" });
  try {
    return utf8.decode(await Bun.stdin.bytes());
  } catch {
    throw new StdinInputError({ command, problem: "not-utf8" });
  }
}

/** `echo text |` ends the text with one newline that is not part of it: drop exactly one (LF or CRLF). */
export function stripOneNewline(text: string): string {
  if (text.endsWith("\r\n")) return text.slice(0, -2);
  return text.endsWith("\n") ? text.slice(0, -1) : text;
}

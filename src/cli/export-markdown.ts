// export --format md: sessions as Markdown for people, whose structure no message or title can change.
import type { ExportSession } from "../app/import-api.ts";
import { nsToRfc3339 } from "../shared/time.ts";

/** The longest run of backticks in `text`. */
function longestRun(text: string): number {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) if (m[0].length > longest) longest = m[0].length;
  return longest;
}

/** Text on one line: a line break (\r\n, \r, \n, which Markdown all reads as one) becomes a space. */
function oneLine(text: string): string {
  return text.replace(/\r\n|[\r\n]/g, " ");
}

/** Text shown as it is in a heading: what Markdown reads inline (GitHub too: ~ strikethrough, $ math) is escaped. */
export function plainText(text: string): string {
  return oneLine(text).replace(/[\\`*_[\]<>#!&~$]/g, "\\$&");
}

/** Text as an inline code span: backticks longer than any run it holds, padded when it starts or ends with one. */
export function codeSpan(text: string): string {
  const flat = oneLine(text);
  if (flat === "") return "` `";
  const ticks = "`".repeat(longestRun(flat) + 1);
  const pad = /^[` ]|[` ]$/.test(flat) ? " " : "";
  return `${ticks}${pad}${flat}${pad}${ticks}`;
}

/** A message's text, exact, in a fenced code block whose fence is longer than any backtick run inside it. */
export function fenced(text: string): string {
  const fence = "`".repeat(Math.max(3, longestRun(text) + 1));
  const body = text === "" || text.endsWith("\n") ? text : `${text}\n`;
  return `${fence}\n${body}${fence}`;
}

/** A session as Markdown: its header, then its messages (a further page of a large session: its messages). */
export function sessionMarkdown(s: ExportSession): string {
  const lines: string[] = [];
  if (!s.continues) {
    const title = s.meta.title?.trim() ? s.meta.title : s.id;
    lines.push(`# ${plainText(title)}`, "", `- session: ${codeSpan(s.id)}`);
    if (s.meta.source) lines.push(`- source: ${codeSpan(s.meta.source)}`);
    if (s.meta.project) lines.push(`- project: ${codeSpan(s.meta.project)}`);
    if (s.meta.parent) lines.push(`- parent: ${codeSpan(s.meta.parent)}`);
    lines.push(`- messages: ${s.total ?? s.messages.length}`, "");
  }
  for (const m of s.messages) {
    const sender = m.sender ? ` (${plainText(m.sender)})` : "";
    lines.push(`## ${m.role}${sender} · ${nsToRfc3339(m.sendAt)}`, "", fenced(m.content), "");
  }
  return `${lines.join("\n")}\n`;
}

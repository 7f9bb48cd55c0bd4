// A message or an error record as plain text, for the pager (o) and the clipboard (y).
import type { StoredMessage } from "../../shared/message.ts";
import { nsToLocalSeconds } from "../../shared/time.ts";
import type { ErrorRecord } from "../api-types.ts";

export function messagePageText(m: StoredMessage): string {
  const who = m.sender ? ` · ${m.sender}` : "";
  return `${m.session} · ${nsToLocalSeconds(m.sendAt)} · ${m.role}${who}\n\n${m.content}\n`;
}

export function errorRecordText(r: ErrorRecord): string {
  const lines = [`${r.tool} · ${r.outcome} · error record ${r.id}`, "", `Error: ${r.error}`];
  if (r.cause) lines.push(`Cause: ${r.cause}`);
  lines.push(`Fix: ${r.fix}`);
  if (r.keywords.length) lines.push(`Keywords: ${r.keywords.join(", ")}`);
  return lines.join("\n") + "\n";
}

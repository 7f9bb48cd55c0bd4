// SQL conditions for a MessageFilter (time bounds, role, sender) over the messages table.
import type { MessageFilter } from "../../shared/time-filter.ts";

/** " AND ..." conditions (column prefix like "m.") and their arguments; empty for no filter. */
export function filterSql(f: MessageFilter | undefined, prefix = ""): { sql: string; args: (string | bigint)[] } {
  const parts: string[] = [];
  const args: (string | bigint)[] = [];
  if (f?.since !== undefined) parts.push(`${prefix}send_at >= ?`), args.push(f.since);
  if (f?.until !== undefined) parts.push(`${prefix}send_at < ?`), args.push(f.until);
  if (f?.role !== undefined) parts.push(`${prefix}role = ?`), args.push(f.role);
  if (f?.sender !== undefined) parts.push(`${prefix}sender = ?`), args.push(f.sender);
  return { sql: parts.map((p) => " AND " + p).join(""), args };
}

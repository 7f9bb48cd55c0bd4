// SQL conditions for a MessageFilter (time bounds, role, sender) over the messages table.
import type { MessageFilter } from "../../shared/time-filter.ts";
import { andWhere, type SqlArg } from "./sql-where.ts";

/** `sql` with ` AND ...` for each bound of the filter (columns prefixed, e.g. "m."), their values bound. */
export function andFilter(sql: string, args: SqlArg[], f: MessageFilter | undefined, prefix = ""): string {
  let out = andWhere(sql, args, `${prefix}send_at >= ?`, f?.since);
  out = andWhere(out, args, `${prefix}send_at < ?`, f?.until);
  out = andWhere(out, args, `${prefix}role = ?`, f?.role);
  return andWhere(out, args, `${prefix}sender = ? COLLATE NOCASE`, f?.sender);
}

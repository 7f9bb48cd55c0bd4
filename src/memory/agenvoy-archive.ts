// An Agenvoy archive found where memvoy's belongs: which of its messages no history.json holds (compacted out of
// it, or of a session whose file is gone), as archived rows of the new archive. The others come from history.json.
import { newId } from "../shared/ids.ts";
import type { MessageRecord } from "../shared/message.ts";
import { isSessionId } from "../shared/session-id.ts";
import { stripLegacyHeaders } from "../storage/history/legacy-records.ts";
import type { AgenvoyArchive } from "../storage/sqlite/salvage.ts";

const key = (role: string, content: string) => `${role}\u0000${content.trim()}`;

/**
 * Rows for buildFromSalvage (archived, seq 1..n in session and time order). A row before its session's cutoff
 * left history.json (Agenvoy's compaction); one after it is taken as the history.json record with the same role
 * and text, each record standing for one row, and is adopted when none is left (a message pruned from the file).
 */
export function agenvoyArchiveRows(
  archive: AgenvoyArchive,
  files: ReadonlyMap<string, readonly MessageRecord[]>,
): { rows: Record<string, unknown>[]; badSessions: Set<string> } {
  const out: Record<string, unknown>[] = [];
  const badSessions = new Set<string>();
  let session = "";
  let inFile = new Map<string, number>();
  for (const row of archive.rows) {
    if (row.session !== session) {
      session = row.session;
      inFile = new Map();
      for (const r of files.get(session) ?? []) {
        const k = key(r.role, r.content);
        inFile.set(k, (inFile.get(k) ?? 0) + 1);
      }
    }
    if (!isSessionId(session)) {
      badSessions.add(session);
      continue;
    }
    const legacy = stripLegacyHeaders(row.content);
    if (legacy.content.trim() === "") continue; // Agenvoy never archived empty text; nothing to keep
    const sendAt = row.sendAt > 0n ? row.sendAt : (legacy.sendAt ?? 0n);
    const cutoff = archive.startAt.get(session);
    if (cutoff === undefined || sendAt >= cutoff) {
      const k = key(row.role, legacy.content);
      const left = inFile.get(k) ?? 0;
      if (left > 0) {
        inFile.set(k, left - 1);
        continue;
      }
    }
    out.push({
      seq: BigInt(out.length + 1),
      id: newId(Number(sendAt / 1_000_000n)),
      session_id: session,
      role: row.role,
      content: legacy.content,
      send_at: sendAt,
      sender: row.sender || legacy.sender || null,
      recent: 0n,
      idempotency_key: null,
    });
  }
  return { rows: out, badSessions };
}

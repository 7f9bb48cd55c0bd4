// Child process that builds one cached home (so the caller's peak RSS is its own): `bun build-cli.ts SPEC_JSON`.
import { Database } from "bun:sqlite";
import { closeSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { buildHome, type HomeSpec } from "./build-home.ts";
import { adoptIntoCache, scratchDir } from "./home-cache.ts";
import { emitRows, log } from "./report.ts";
import { fmtMiB, peakRssBytes } from "./rss.ts";
import { countLabel, homeName } from "./sizes.ts";
import { fmtInt } from "./stats.ts";

export const EXPORT_FILE = "export.jsonl";

/** Every message as one JSON line (what a user would grep): id, session, role, content, sendAt. */
export function exportJsonl(home: string): void {
  const db = new Database(join(home, ".store", "history.db"), { readonly: true, safeIntegers: true });
  const fd = openSync(join(home, EXPORT_FILE), "w", 0o600);
  try {
    let buf: string[] = [];
    const rows = db
      .query("SELECT id, session_id, role, content, send_at FROM messages ORDER BY seq")
      .iterate() as IterableIterator<{
      id: string;
      session_id: string;
      role: string;
      content: string;
      send_at: bigint;
    }>;
    for (const r of rows) {
      buf.push(
        JSON.stringify({
          id: r.id,
          session: r.session_id,
          role: r.role,
          content: r.content,
          sendAt: String(r.send_at),
        }),
      );
      if (buf.length >= 10_000) {
        writeSync(fd, buf.join("\n") + "\n");
        buf = [];
      }
    }
    if (buf.length) writeSync(fd, buf.join("\n") + "\n");
  } finally {
    closeSync(fd);
    db.close();
  }
}

if (import.meta.main) {
  const spec = JSON.parse(process.argv[2]!) as HomeSpec;
  const name = homeName(spec);
  const dir = scratchDir(name);
  log(`building ${name} (cached for later runs) in ${dir}`);
  const stats = buildHome(dir, spec, (done) => log(`  ${fmtInt(done)} messages`));
  if (process.argv.includes("--export")) exportJsonl(dir);
  adoptIntoCache(name, dir);
  const limit = spec.maxHistoryBytes === undefined ? "default limits" : `max_history_bytes=${spec.maxHistoryBytes}`;
  const label = `import ${countLabel(spec.messages)} msgs, ${spec.sessions} sessions, ${spec.batch}/add, ${limit}`;
  emitRows([
    {
      name: label,
      value: `${fmtInt(spec.messages / (stats.addMs / 1000))} msg/s (${fmtInt(stats.compacted)} compacted)`,
    },
    { name: `${label}: peak RSS`, value: fmtMiB(peakRssBytes()) },
  ]);
}

// Helpers for importer tests: a temp home, one import pass through the library, a session's messages.
import type { ImportTarget } from "../../src/app/import-target.ts";
import type { HomeMemory } from "../../src/app/memory-api.ts";
import { importSource, type ImportOptions } from "../../src/import/run-import.ts";
import { sourceByName, type SourceName } from "../../src/import/source-registry.ts";
import { nsToRfc3339 } from "../../src/shared/time.ts";

export function importWith(api: ImportTarget, name: SourceName, paths: string[], o: ImportOptions = {}) {
  return importSource(api, sourceByName(api, name), { paths, ...o });
}

/** [role, content, sendAt] of every message of a session, in session order. */
export function messagesOf(api: HomeMemory, session: string): [string, string, string][] {
  return api.history(session, { all: true }).map((m) => [m.role, m.content, nsToRfc3339(m.sendAt)]);
}

export function sessionInfo(api: HomeMemory, id: string) {
  return api.sessions().find((s) => s.id === id);
}

/** A one-message memvoy export (session `s1`, message `m1`), as JSONL lines: another source's importer must refuse it. */
export function memvoyExportLines(meta: Record<string, string> = {}): string[] {
  return [
    JSON.stringify({ type: "session", id: "s1", ...meta }),
    JSON.stringify({
      type: "message",
      id: "m1",
      session: "s1",
      role: "user",
      content: "hi",
      sendAt: "2026-01-01T00:00:00.000000000Z",
    }),
  ];
}

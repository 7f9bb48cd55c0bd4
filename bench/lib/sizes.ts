// Benchmark sizes: the full run (1M messages in 1,000 sessions) and --quick (checks the scripts work).
import { quick } from "./report.ts";
import type { HomeSpec } from "./build-home.ts";

/** limits.max_history_bytes of the "archived" home: the minimum allowed, so history.json keeps about the context window (~16 messages) and nearly every row is archived. */
export const ARCHIVED_MAX_HISTORY_BYTES = 4096;

export const IMPORT_SPEC: HomeSpec = quick
  ? { messages: 20_000, sessions: 100, batch: 100 }
  : { messages: 1_000_000, sessions: 1_000, batch: 500 };

export const ARCHIVED_SPEC: HomeSpec = { ...IMPORT_SPEC, maxHistoryBytes: ARCHIVED_MAX_HISTORY_BYTES };

/** Cache names of the two homes (same messages, different history limits). */
export const homeName = (spec: HomeSpec) =>
  `home-${spec.messages}-${spec.sessions}-${spec.maxHistoryBytes ?? "default"}`;

export const countLabel = (n: number) =>
  n >= 1_000_000 ? `${n / 1_000_000}M` : n >= 1000 ? `${n / 1000}k` : String(n);

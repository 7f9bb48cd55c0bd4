// Create the demo home through the HomeMemory (the real write path): dated sessions in English and
// Traditional Chinese, their summaries (imported, no LLM call), error records, and their vectors.
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureDir, FILE_MODE } from "../../shared/atomic-write.ts";
import { homeNotMade } from "../../shared/folder-made.ts";
import { namedError } from "../../shared/errors.ts";
import { NS_PER_DAY, NS_PER_SEC, nowNs, nsToUtcSeconds } from "../../shared/time.ts";
import { openMemory } from "../open-memory.ts";
import { DEMO_ERRORS } from "./demo-error-memory.ts";
import { billingWebhooks, deployPipeline, researchNotes, tempScratch } from "./demo-sessions-en.ts";
import { kyotoTrip, orderService } from "./demo-sessions-zh.ts";
import type { DemoSession } from "./demo-types.ts";

/** Oldest conversation first, so every session's last activity is when its conversation ended. */
export const DEMO_SESSIONS: readonly DemoSession[] = [
  researchNotes,
  kyotoTrip,
  billingWebhooks,
  orderService,
  deployPipeline,
  tempScratch,
];
/** When each error record was written, in days before now. */
const ERROR_DAYS_AGO = [20, 9, 4, 2, 1];

// A small history.json limit, so the longest session already has an archived part (the archive marker).
const DEMO_CONFIG = `# memvoy demo home. history.json is kept small here so the archive tier shows;
# the default is 4194304 (4 MiB).
[limits]
max_history_bytes = 4096
`;

export const DemoHomeNotEmptyError = namedError<{ home: string; others?: string[] }>(
  "DemoHomeNotEmptyError",
  "input",
  (d) =>
    d.others
      ? `${d.home} is not empty (${othersText(d.others)}); give demo an empty or new folder with --home`
      : `${d.home} already holds memvoy data; give demo an empty or new folder with --home`,
);

function othersText(names: string[]): string {
  const shown = names.slice(0, 3).map((n) => JSON.stringify(n));
  return `it holds ${shown.join(", ")}${names.length > 3 ? ` and ${names.length - 3} more` : ""}`;
}

/** What a home holds that memvoy made (a home opened by the first-run screen, a daemon started on it). */
const HOME_ENTRY =
  /^(?:config\.toml|sessions|tui\.log(?:\..+)?|daemon\.log(?:\..+)?|daemon\.lock|daemon\.state\.json|http\.json)$/;

/**
 * The entries of `home` that memvoy did not make (none when the folder does not exist yet). Hidden ones do not
 * count: a file manager's .DS_Store, a tool's cache or an editor's swap file says nothing of what the folder is.
 */
function otherEntries(home: string): string[] {
  try {
    return readdirSync(home)
      .filter((name) => !name.startsWith(".") && !HOME_ENTRY.test(name))
      .sort();
  } catch {
    return [];
  }
}
export type DemoHomeNotEmptyError = InstanceType<typeof DemoHomeNotEmptyError>;

/** --home names a file, or a folder under one: no demo home can be made there. */
export const DemoHomeNotAFolderError = namedError<{ home: string }>(
  "DemoHomeNotAFolderError",
  "input",
  (d) => `${d.home} is a file, or lies under one; give demo an empty or new folder with --home`,
);
export type DemoHomeNotAFolderError = InstanceType<typeof DemoHomeNotAFolderError>;

export interface DemoReport {
  home: string;
  sessions: number;
  messages: number;
  summaries: number;
  errors: number;
}

/** Sessions or error records: a home only opened so far (the first-run screen) holds none and may be filled. */
function holdsData(home: string): boolean {
  const sessions = join(home, "sessions");
  if (existsSync(sessions) && readdirSync(sessions).length > 0) return true;
  if (!existsSync(join(home, ".store", "history.db"))) return false;
  const api = openMemory({ home, env: {}, drain: "off" });
  try {
    return api.sessions().length > 0 || api.listErrors({ limit: 1 }).total > 0;
  } finally {
    api.close();
  }
}

export async function seedDemoHome(home: string): Promise<DemoReport> {
  if (holdsData(home)) throw new DemoHomeNotEmptyError({ home });
  // A project's folder or the user's own home, named by mistake, is not filled with a home's files.
  const others = otherEntries(home);
  if (others.length > 0) throw new DemoHomeNotEmptyError({ home, others });
  try {
    ensureDir(home);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST" || code === "ENOTDIR") throw new DemoHomeNotAFolderError({ home }, { cause: err });
    throw homeNotMade(home, err);
  }
  const configPath = join(home, "config.toml");
  if (!existsSync(configPath)) writeFileSync(configPath, DEMO_CONFIG, { mode: FILE_MODE });
  const now = nowNs();
  let clock = now;
  const api = openMemory({ home, env: {}, now: () => (clock += 1n) });
  const report: DemoReport = { home: api.home, sessions: 0, messages: 0, summaries: 0, errors: 0 };
  try {
    for (const s of DEMO_SESSIONS) {
      const end = now - BigInt(Math.round(s.endedDaysAgo * 86_400)) * NS_PER_SEC;
      const times = s.turns.map(
        (_, i) => end - BigInt((s.turns.length - 1 - i) * s.pace * 60 + ((i * 37) % 50)) * NS_PER_SEC,
      );
      clock = end + NS_PER_SEC;
      api.add(
        s.id,
        s.turns.map(([role, content], i) => ({
          role,
          content,
          sendAt: times[i]!,
          ...(role === "user" ? { sender: s.user } : {}),
        })),
      );
      report.sessions++;
      report.messages += s.turns.length;
      if (s.summary) {
        clock = end + 2n * NS_PER_SEC;
        const past = s.summary.past_discussions.map((p, k, all) => {
          const at = times[Math.floor(((k + 1) * times.length) / (all.length + 2))]!;
          return { ...p, last_discussed: p.last_discussed || nsToUtcSeconds(at).slice(0, 16) };
        });
        api.importSummary(s.id, { ...s.summary, past_discussions: past });
        report.summaries++;
      }
    }
    for (const [i, e] of DEMO_ERRORS.entries()) {
      clock = now - BigInt(ERROR_DAYS_AGO[i] ?? 1) * NS_PER_DAY;
      await api.recordError(e);
      report.errors++;
    }
    clock = nowNs();
    // Vectors for semantic search; the builtin embedder needs no network.
    await api.flushEmbeddings();
    await api.drainEmbeddings({ wait: true });
  } finally {
    api.close();
  }
  return report;
}

// memvoy reindex [--pending]: rebuild every vector with the configured embedder (interruptible, resumable).
import { existsSync } from "node:fs";
import { homePaths, resolveHome } from "../../config/home.ts";
import { openMemory } from "../../app/open-memory.ts";
import { watchPaths } from "../../app/home-watch.ts";
import { bool, str, type Parsed } from "../args.ts";
import type { HomeMemory } from "../../app/memory-api.ts";
import { openSharedHome, sharedArchiveUrl } from "../../app/shared/open-shared.ts";
import { runCommand, using, withInterrupt, type CommandSpec } from "../command.ts";
import { printJson, println } from "../output.ts";
import { progressBar, redrawsInPlace } from "../progress.ts";
import { lineText } from "../../shared/terminal-text.ts";

export const usage = `
Usage: memvoy reindex [--pending] [--json]

Rebuild the vector of every recent message and every error-memory record with
the configured embedder ([embedder] in config.toml), e.g. after changing it or
when doctor names a damaged vector table; vectors of other embedders are
dropped once the rebuild is complete. A progress bar shows on a terminal.
Ctrl-C stops after the current batch; run memvoy reindex again to resume.
A second memvoy reindex on the same home waits for the first to finish, then
embeds only what was queued since (or resumes the first if it was interrupted).

On a shared archive ([archive] url) the vectors on the shared store ([vectors] uri) are rebuilt,
holding the embedding drain's lease throughout, so no other host's drain writes meanwhile (a rebuild
waits up to 30 s for a drain elsewhere to finish its batch, then says nothing was rebuilt and exits 1;
--pending does not wait). One rebuild
runs at a time across every host: a second one waits for it as on one home.

  --pending   only embed the messages waiting in the queue (no rebuild)
  --quiet     print nothing (used for the background drain after memvoy add)
`;

/**
 * Said before the vector index is built: over a million vectors that takes many minutes, after a full progress bar,
 * and a first Ctrl-C cannot cut it short.
 */
const INDEX_BUILD_NOTE = (rows: number) =>
  `memvoy: building the vector index over ${rows.toLocaleString("en-US")} vectors; this takes minutes on a large home (semantic search works meanwhile, more slowly; Ctrl-C twice stops it, and the next reindex or the daemon's maintenance builds it)`;

/** The background drain after `memvoy add` waits this long for more writes before exiting. */
const BACKGROUND_LINGER_MS = 1500;

const spec: CommandSpec = {
  name: "reindex",
  usage,
  flags: { pending: { type: "boolean" }, quiet: { type: "boolean" } },
  positionals: [],
};

export function run(argv: readonly string[]): Promise<number> {
  return runCommand(spec, argv, (p) => {
    const home = str(p, "home");
    if (sharedArchiveUrl({ home }) !== undefined) return reindexShared(p);
    const background = bool(p, "pending") && bool(p, "quiet");
    // The background drain must not recreate a home that was removed meanwhile.
    if (background && !existsSync(homePaths(resolveHome(home)).db)) return 0;
    // A home that does not exist has no vector to rebuild: it is answered as an empty one and left uncreated.
    const open = { home, drain: "off", create: !background, readOnly: !background, command: "reindex" } as const;
    return using(openMemory(open), (api) =>
      withInterrupt(async (signal) => {
        // Nor recreate it when it is removed while the drain runs: stop and exit.
        const paths = homePaths(resolveHome(home));
        const stopWatching = background ? watchPaths([paths.home, paths.store], () => process.exit(0), 100) : () => {};
        try {
          return await reindex(api, p, signal);
        } finally {
          stopWatching();
        }
      }),
    );
  });
}

/** On a shared archive: the vectors on the shared store, rebuilt under the drain's lease. */
async function reindexShared(p: Parsed): Promise<number> {
  const api = await openSharedHome({ home: str(p, "home"), connections: 1 });
  try {
    return await withInterrupt((signal) => reindex(api, p, signal));
  } finally {
    await api.close();
  }
}

/** Shown of the messages the embedder refused; the rest are counted. */
const REFUSED_SHOWN = 10;

/** The messages the embedder refused, by id and session, with why: they stay without a vector. */
function refusedLines(refused: readonly { id: string; session: string; error: string }[]): string {
  const n = refused.length;
  const head = `memvoy: the embedder refused ${n} message${n === 1 ? "" : "s"}, which ${n === 1 ? "stays" : "stay"} without a vector (keyword search still finds ${n === 1 ? "it" : "them"}; memvoy reindex --pending tries again):\n`;
  const lines = refused
    .slice(0, REFUSED_SHOWN)
    .map((m) => `  ${m.id} in session ${lineText(m.session)}: ${lineText(m.error)}\n`);
  const more = n > REFUSED_SHOWN ? `  and ${n - REFUSED_SHOWN} more (memvoy reindex --json lists them)\n` : "";
  return head + lines.join("") + more;
}

/** The error-memory records the embedder refused, by id, with why. */
function refusedRecordLines(refused: readonly { id: string; error: string }[]): string {
  const n = refused.length;
  const head = `memvoy: the embedder refused ${n} error record${n === 1 ? "" : "s"}, which ${n === 1 ? "stays" : "stay"} without a vector (errors search still finds ${n === 1 ? "it" : "them"} by its words):\n`;
  const lines = refused.slice(0, REFUSED_SHOWN).map((m) => `  ${m.id}: ${lineText(m.error)}\n`);
  const more = n > REFUSED_SHOWN ? `  and ${n - REFUSED_SHOWN} more (memvoy reindex --json lists them)\n` : "";
  return head + lines.join("") + more;
}

async function reindex(api: Pick<HomeMemory, "reindex">, p: Parsed, signal: AbortSignal): Promise<number> {
  const pending = bool(p, "pending");
  const quiet = bool(p, "quiet");
  const json = bool(p, "json");
  const bar = !quiet && !json && redrawsInPlace(process.stderr) ? progressBar(process.stderr) : undefined;
  let total = 0;
  let waiting = false;
  try {
    const r = await api.reindex({
      pendingOnly: pending,
      lingerMs: quiet ? BACKGROUND_LINGER_MS : undefined,
      signal,
      onWait: (holder) => {
        waiting = true;
        const where = holder === undefined ? "on this home" : `on the shared archive${holder ? ` (${holder})` : ""}`;
        if (!quiet && !json)
          process.stderr.write(`memvoy: another memvoy reindex is running ${where}; waiting for it to finish\n`);
      },
      onStart: (n, resumed) => {
        waiting = false;
        total = n;
        if (!quiet && !json && resumed) process.stderr.write("memvoy: resuming the interrupted reindex\n");
        bar?.update(0, total);
      },
      onProgress: (done, remaining) => bar?.update(done, Math.max(total, done + remaining)),
      onIndexBuild: (rows) => {
        bar?.done();
        if (!quiet && !json) process.stderr.write(`${INDEX_BUILD_NOTE(rows)}\n`);
      },
    });
    bar?.done();
    if (json)
      printJson({
        embedder: r.embedderId,
        embedded: r.embedded,
        remaining: r.remaining,
        failed: r.failed,
        refused: r.refused ?? [],
        errorsRefused: r.errorsRefused ?? [],
        resumed: r.resumed,
        dropped: r.dropped,
        errorsEmbedded: r.errorsEmbedded,
        busy: r.busy,
        waited: r.waited,
        error: r.error ?? null,
      });
    else if (!quiet) {
      if (r.busy && !pending)
        process.stderr.write(
          "memvoy: another process kept the shared vectors busy for 30 s (a drain, or memvoy migrate-archive copying vectors): nothing was rebuilt; run memvoy reindex again\n",
        );
      else if (r.busy) println("another process is embedding this home's queue; nothing to do");
      else if (r.waited && !r.resumed && r.embedded === 0 && r.remaining === 0 && r.error === undefined)
        println(`${r.embedderId}: the other reindex rebuilt every vector; nothing was left to embed`);
      else
        println(
          `${r.embedderId}: embedded ${r.embedded} message(s)${r.remaining ? `, ${r.remaining} left` : ""}${r.errorsEmbedded ? ` and ${r.errorsEmbedded} error record(s)` : ""}${r.dropped.length ? `; dropped vectors of ${r.dropped.join(", ")}` : ""}`,
        );
    }
    if (r.busy && !pending) return 1; // a rebuild asked for and not made
    if (r.error !== undefined) {
      if (!json && !quiet)
        process.stderr.write(`memvoy: embedding failed: ${r.error}; ${r.remaining} message(s) stay queued\n`);
      return r.configError ? 2 : 1;
    }
    if (r.refused?.length || r.errorsRefused?.length) {
      if (!json && !quiet) {
        if (r.refused?.length) process.stderr.write(refusedLines(r.refused));
        if (r.errorsRefused?.length) process.stderr.write(refusedRecordLines(r.errorsRefused));
      }
      return 1;
    }
    return 0;
  } catch (err) {
    bar?.done();
    if (signal.aborted) {
      // --json prints its one document also when stopped.
      if (json) printJson({ interrupted: true, waited: waiting });
      if (!quiet)
        process.stderr.write(
          waiting
            ? "memvoy: interrupted while waiting for the other reindex; nothing was changed\n"
            : "memvoy: interrupted; run memvoy reindex again to resume\n",
        );
      return 130;
    }
    throw err;
  }
}

// memvoy migrate-archive: copy this home's archive into the configured PostgreSQL archive (resumable, verified).
import { archiveUrl, migrateArchive } from "../../app/migrate-archive.ts";
import { bool, str, type Parsed } from "../args.ts";
import { runCommand, withInterrupt, type CommandSpec } from "../command.ts";
import { CommandUsageError } from "../usage-errors.ts";
import { plural, printJson, println } from "../output.ts";
import { progressBar, redrawsInPlace } from "../progress.ts";

export const usage = `
Usage: memvoy migrate-archive [--batch N] [--json]

Copy this home's archive (.store/history.db: every message, the sessions and
their metadata, the messages still waiting for a vector, summary runs, token
usage, error memory) and each session's summary and cursor into the shared
PostgreSQL archive, then check that the counts match. This is the path from one
machine to many: afterwards every host configured with the same archive sees
these sessions. The home is not changed.

The target comes from the config, never from the command line:
  [archive]
  url = "postgres://user@host/db"        in config.toml (no password there), or
  MEMVOY_ARCHIVE_URL=postgres://user:password@host/db   in the environment.
A password not in MEMVOY_ARCHIVE_URL is read from PGPASSWORD.

A progress bar shows on a terminal. The copy is resumable: Ctrl-C (or a kill)
stops it, and running memvoy migrate-archive again continues where it stopped.
Running it again later copies what was added since, and removes from the
archive what rm, reset and rm-message removed here since (a summary dropped by
reset --all or --drop-summary too, unless a host rewrote it there since, and
error records removed or expired here). The
target database must be empty, or hold only what an earlier run copied from
this home.

Vectors stay in the home's local store unless a shared vector store is
configured ([vectors] uri); then they are copied too, with their own progress
bar, after the messages: a killed vector copy also resumes (the rows already
in the target are skipped), and every vector id is checked in the target.

  --batch N   messages per transaction (default 2000)
  --json      print the result as JSON

One run per home at a time: a second one started meanwhile stops at once. The
vector copy takes turns with the daemons writing the shared vectors (the
archive's vector-write lease): it waits up to 30 s for one to finish a batch.

Exit codes: 0 copied and verified, 1 the copy failed or does not match (or the
shared vectors stayed busy), 2 no archive URL configured, a password in
config.toml, a non-empty target, a target that hosts have written to or removed
from since the last run (bring this home's later messages with memvoy export and
memvoy import jsonl instead), or another run of this home in progress.
`;

const spec: CommandSpec = {
  name: "migrate-archive",
  usage,
  flags: { batch: { type: "number" } },
  positionals: [],
};

export function run(argv: readonly string[]): Promise<number> {
  return runCommand(spec, argv, (p) => migrate(p));
}

function batchSize(p: Parsed): number | undefined {
  const n = p.flags.batch as number | undefined;
  if (n !== undefined && (n < 1 || n > 100_000))
    throw new CommandUsageError({
      problem: "flag-rule",
      command: "migrate-archive",
      flag: "--batch",
      rule: "from 1 to 100000",
    });
  return n;
}

async function migrate(p: Parsed): Promise<number> {
  const home = str(p, "home");
  const json = bool(p, "json");
  const batch = batchSize(p);
  archiveUrl(home); // exit 2 at once when no target is configured
  const bar = !json && redrawsInPlace(process.stderr) ? progressBar(process.stderr) : undefined;
  let vectorBar: ReturnType<typeof progressBar> | undefined;
  let resumedAt = 0;
  return withInterrupt(async (signal) => {
    const r = await migrateArchive({
      home,
      batch,
      signal,
      onStart: (total, already, resuming) => {
        if (!json && resuming && already > 0)
          process.stderr.write(`memvoy: resuming the copy (${already} of ${total} messages already there)\n`);
        resumedAt = already;
        bar?.update(already, total, already);
      },
      onProgress: (done, total) => bar?.update(done, total, resumedAt),
      onVectorProgress: (done, total, skipped) => {
        if (!vectorBar && bar) {
          bar.done();
          vectorBar = progressBar(process.stderr, 30, "vectors");
        }
        vectorBar?.update(done, total, skipped);
      },
    });
    (vectorBar ?? bar)?.done();
    if (!json && r.nulReplaced > 0)
      process.stderr.write(
        `memvoy: ${plural(r.nulReplaced, "message")} held a NUL character, which PostgreSQL text cannot hold: copied with U+FFFD in its place\n`,
      );
    if (json) {
      printJson({ ...r, counts: r.counts ?? null });
      return r.done ? 0 : 130;
    }
    if (!r.done) {
      println(`stopped after ${plural(r.copied, "message")}: run memvoy migrate-archive again to resume`);
      return 130;
    }
    const c = r.counts!;
    println(
      `copied ${plural(r.copied, "message")} (${c.messages} in the archive, ${plural(c.sessions, "session")}, ` +
        `${plural(r.summaries, "summary", "summaries")}, ${plural(c.errors, "error record")}, ${plural(c.usage, "usage row")}): counts verified`,
    );
    println(
      r.vectors === "local"
        ? "vectors: kept in this home's local store (no shared vector store is configured)"
        : `vectors: ${r.vectors.copied} copied`,
    );
    return 0;
  }, "memvoy: stopping after the current batch (Ctrl-C again to quit at once)\n");
}

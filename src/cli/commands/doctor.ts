// memvoy doctor [--repair] [--migrate]: check history.json files against the archive; repair what can be
// repaired; run the keyword index upgrade now (the daemon otherwise runs it in the background).
import {
  BrokenDatabaseError,
  planArchiveRescue,
  rescueBrokenArchive,
  rescueWouldWait,
  type RescuePlan,
} from "../../app/archive-rescue.ts";
import { existsSync } from "node:fs";
import type { HomeMemory } from "../../app/memory-api.ts";
import { holdsHome } from "../../app/open-memory.ts";
import { homePaths, resolveHome } from "../../config/home.ts";
import { ignoredVariables, inspectConfig } from "../../app/config-info.ts";
import { sharedArchiveUrl } from "../../app/shared/open-shared.ts";
import { sharedDoctor, type SharedDoctorReport } from "../../app/shared/shared-doctor.ts";
import { bool, str, type Parsed } from "../args.ts";
import { openFromFlags, runCommand, using, withInterrupt, type CommandSpec } from "../command.ts";
import { printJson, println } from "../output.ts";
import { lineText } from "../../shared/terminal-text.ts";
import { progressBar, redrawsInPlace } from "../progress.ts";
import { percentDone } from "../../shared/percent-done.ts";

type DoctorReport = ReturnType<HomeMemory["doctor"]>;

/** A line of the report: the names in it are the home's files, and a file's name may hold an escape sequence. */
const say = (line: string) => println(lineText(line));
type IndexUpgradeState = ReturnType<HomeMemory["indexUpgrade"]>;

export const usage = `
Usage: memvoy doctor [--repair [--yes]] [--migrate] [--json]

Check the home: SQLite integrity, and every session's history.json against the
archive. --repair moves a corrupt history.json aside (history.json.corrupt-TIME)
and rebuilds it from the archive, which holds every message. One that holds an id
twice, or ids of another session's messages (a copied session folder), is
rewritten in place instead: the first record of a repeated id is kept (the others
are named as dropped), and copied records get new ids in this session. Exit code
1 when a problem is left unrepaired.

doctor also names a symbolic link where memvoy keeps a lock file, a log or the
vector store (every command refuses to follow it), and a file or link in
sessions/ named like a session (commands on that session fail). --repair removes
a linked lock file or log (the link only: memvoy creates the file again) and
moves such a file out of sessions/, to <home>/NAME.stray-TIME. A named pipe,
socket or device at a lock file or log is named, and --repair removes it (every
command refuses it rather than wait on it). Files and folders
of the home that other users may open (a restore under another umask) are named
too, and --repair makes them private again (0600 / 0700). Every vector table
(message vectors and error-memory vectors) is read through: a damaged one (a
data file gone, a manifest cut short) is named, and memvoy reindex rebuilds it
from the archive. So is a message-vector table an earlier memvoy made whose
vector index is built: removed messages' vectors stay in its files, and memvoy
reindex rebuilds it with stable row ids. A MEMVOY_* variable memvoy does not
read (a misspelling) and a cron pattern the daemon refuses ([summary] cron,
[daemon] sweep_cron or maintenance_cron, [import] cron) are named too. So is a
full-text index (keyword, substring or error memory) that no longer holds an
entry for every message or error record (emptied by another program: search
would miss them without a word); --repair rebuilds it from the archive.

A broken history.db (truncated, garbled, a wrong header) is named with what is
wrong, what SQLite can still read and what a rebuild would lose. --repair then
asks (or --yes skips the question), moves the broken files aside
(history.db.broken-TIME) and rebuilds the archive from what could be read plus
every session's history.json.

--migrate runs the keyword index upgrade now, with a progress bar: a new index
with a session column, so that a search in one session stays fast on a large
archive. The daemon runs it in the background otherwise. Writes and searches go
on meanwhile (search uses the current index until the new one is complete);
stopped with Ctrl-C, it resumes where it left off.

On a shared archive ([archive] url or MEMVOY_ARCHIVE_URL) doctor checks instead:
  - the PostgreSQL archive answers and its schema is this memvoy's version (doctor
    only reports a schema behind; --migrate runs the missing migrations, as every
    other command does when it opens the archive);
  - the shared vectors open (each table by name: an object store is not listed);
  - this host's session caches (history.json, summary.json, .summary_cursor) match
    the archive (a cache only behind another host's writes is no problem: it is
    rewritten at the session's next use here); --repair rewrites a stale one
    atomically under the session's lock, and removes temp files left by a writer
    that died;
  - no job lease runs further ahead than any job takes (--repair ends such a lease);
  - config.toml holds no secret.
--json adds "shared": the archive (user@host:port/db, schema version), the vector
counts and the leases held now. Exit code 1 when a problem is left unrepaired.
`;

const spec: CommandSpec = {
  name: "doctor",
  usage,
  flags: { repair: { type: "boolean" }, yes: { type: "boolean", short: "y" }, migrate: { type: "boolean" } },
  positionals: [],
};

export function run(argv: readonly string[]): Promise<number> {
  return runCommand(spec, argv, async (p) => {
    const home = str(p, "home");
    const paths = homePaths(resolveHome(home));
    const absent = holdsHome(paths) ? undefined : existsSync(paths.home) ? "holds no memvoy home" : "does not exist";
    if (sharedArchiveUrl({ home }) !== undefined) {
      // A check leaves a home that does not exist uncreated; a repair or an upgrade of the archive makes it, as
      // does a check of a folder with a config.toml (made for this host's caches).
      const changes = bool(p, "repair") || bool(p, "migrate") || existsSync(paths.config);
      const r = await sharedDoctor({ home, repair: bool(p, "repair"), migrate: bool(p, "migrate") });
      const config = await configFindings(home);
      return check(r, bool(p, "json"), undefined, bool(p, "repair"), changes ? undefined : absent, config);
    }
    // A home that does not exist is checked as an empty one and left uncreated: it has nothing to repair or upgrade.
    try {
      return await using(openFromFlags(p, "doctor", undefined, false, true), async (api) => {
        if (bool(p, "migrate") && !(await migrate(api, bool(p, "json")))) return 130;
        // The check first: it finds a damaged database (and rescues it) before the upgrade's counts read it.
        const report = api.doctor({ repair: bool(p, "repair") });
        const vectors = await api.vectorFindings();
        const all = vectors.length > 0 ? { ...report, findings: [...report.findings, ...vectors], ok: false } : report;
        return check(all, bool(p, "json"), api.indexUpgrade(), bool(p, "repair"), absent, await configFindings(home));
      });
    } catch (err) {
      if (!(err instanceof BrokenDatabaseError)) throw err;
      return rescue(p, err);
    }
  });
}

/** The share of the index upgrade done, in whole percent. */
const upgradeDone = (s: IndexUpgradeState) => (s.done ? 100 : percentDone(s.copied, s.total));

function check(
  report: DoctorReport | SharedDoctorReport,
  json: boolean,
  upgrade?: IndexUpgradeState,
  repaired = false,
  /** The home is not there: what is at its path ("does not exist", "holds no memvoy home"). */
  absent?: string,
  /** What is wrong with the settings (configFindings). */
  config: DoctorReport["findings"] = [],
): number {
  const r = withConfigFindings(report, config);
  // The upgrade is not a problem: searches use the current index until it is complete.
  const index = upgrade && { upgraded: upgrade.done, percentDone: upgradeDone(upgrade) };
  if (json) printJson(index ? { ...r, keywordIndex: index } : r);
  else {
    say(`home ${r.home}: ${r.sessions} session(s)`);
    if (absent) say(`${r.home} ${absent} yet: the first write (memvoy add, import or demo) creates it`);
    if (index && !index.upgraded)
      say(
        `keyword index: an upgrade is pending (${index.percentDone}% done); the daemon runs it in the background, memvoy doctor --migrate runs it now`,
      );
    if ("shared" in r) for (const line of sharedLines(r)) say(line);
    for (const f of r.findings)
      say(`${f.session ? `${f.session}: ` : ""}${f.problem}${f.repaired ? ` -> repaired: ${f.repaired}` : ""}`);
    say(
      r.findings.length === 0
        ? "all good"
        : r.ok
          ? "all problems repaired"
          : "shared" in r && !r.shared.archive.reachable
            ? "problems found; nothing can be repaired while the shared archive cannot be reached"
            : repaired || r.findings.every((f) => f.repaired !== undefined || f.manual)
              ? "problems left that --repair does not change; each says what to do"
              : "problems found; run memvoy doctor --repair",
    );
  }
  return r.ok ? 0 : 1;
}

/**
 * What is wrong with the settings, though every command loads them: a misspelled MEMVOY_* name (MEMVOY_HOEM)
 * leaves its setting unused, the home checked here included; a cron pattern croner refuses (config check's
 * test) stops the daemon from starting.
 */
async function configFindings(home: string | undefined): Promise<DoctorReport["findings"]> {
  const env: DoctorReport["findings"] = ignoredVariables().map((problem) => ({ problem, manual: true }));
  // croner is loaded here only, as config check loads it: commands keep it out of their static imports.
  const { cronKeys, cronPatternError } = await import("../../daemon/cron-patterns.ts");
  const cron = cronKeys(inspectConfig(home).config).flatMap((k) => {
    const reason = cronPatternError(k.pattern);
    if (reason === undefined) return [];
    const key = process.env[k.env] !== undefined ? `${k.key} (${k.env})` : k.key;
    return [
      {
        problem: `${key}: invalid cron pattern ${JSON.stringify(k.pattern)}: ${reason}; memvoy --daemon refuses to start until it is fixed (memvoy config check)`,
        manual: true as const,
      },
    ];
  });
  return [...env, ...cron];
}

function withConfigFindings<R extends DoctorReport | SharedDoctorReport>(r: R, config: DoctorReport["findings"]): R {
  return config.length > 0 ? { ...r, findings: [...config, ...r.findings], ok: false } : r;
}

function sharedLines(r: SharedDoctorReport): string[] {
  const { archive: a, vectors: v, leases } = r.shared;
  return [
    `shared archive ${a.target}: ${a.reachable ? `schema version ${a.schemaVersion ?? "?"} of ${a.expectedVersion ?? "?"}` : "not reachable"}`,
    `shared vectors ${v.uri}: ${v.reachable ? `${v.messageVectors} message vector(s), ${v.errorVectors} error vector(s)` : "not checked or not reachable"}`,
    `this host's session caches checked: ${r.shared.caches}`,
    ...leases.map(
      (l) => `lease ${l.job} (${l.session}) held by ${l.holder}, ${Math.ceil(l.expiresInMs / 1000)} s left`,
    ),
  ];
}

function describePlan(plan: RescuePlan): string[] {
  const s = plan.salvaged;
  if (plan.agenvoy)
    return [
      `${plan.file} is not memvoy's archive: ${plan.problem}`,
      `it holds ${plan.agenvoy.messages} message(s); ${plan.agenvoy.adopted} of them are in no history.json (compacted out of it, or of a session without one) and are adopted as archived messages`,
      `history.json files add ${plan.fromHistoryFiles} message(s), adopted as on any first encounter`,
      plan.lost.length === 0 ? "adopting it loses nothing" : `adopting it loses: ${plan.lost.join("; ")}`,
    ];
  return [
    `${plan.file} is broken: ${plan.problem}`,
    `SQLite can still read: ${s.messages} message(s) in ${s.sessions} session(s), ${s.errorRecords} error-memory record(s), ${s.usageRows} usage row(s), ${s.summaryRuns} summary run(s)`,
    `history.json files add ${plan.fromHistoryFiles} message(s) the salvage lacks`,
    plan.lost.length === 0 ? "a rebuild loses nothing" : `a rebuild loses: ${plan.lost.join("; ")}`,
  ];
}

async function confirm(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  process.stderr.write(`${question} [y/N] `);
  for await (const line of console) return /^y(es)?$/i.test(line.trim());
  return false;
}

async function rescue(p: Parsed, err: BrokenDatabaseError): Promise<number> {
  const home = str(p, "home");
  const plan = planArchiveRescue(err.data.detail, home);
  const json = bool(p, "json");
  if (!bool(p, "repair")) {
    if (json) printJson({ broken: plan, repaired: false });
    else {
      for (const line of describePlan(plan)) say(line);
      say(
        plan.agenvoy
          ? "to move it aside and adopt its messages: memvoy doctor --repair"
          : "to move it aside and rebuild: memvoy doctor --repair",
      );
    }
    return 1;
  }
  if (!json) for (const line of describePlan(plan)) say(line);
  const go =
    bool(p, "yes") ||
    (await confirm(
      plan.agenvoy
        ? "move the Agenvoy archive aside and adopt its messages into a new archive?"
        : "move the broken database aside and rebuild it?",
    ));
  if (!go) {
    if (json) printJson({ broken: plan, repaired: false });
    else say("nothing was changed; to rebuild without the question: memvoy doctor --repair --yes");
    return 1;
  }
  if (rescueWouldWait(home))
    process.stderr.write("memvoy: waiting for another memvoy process using this home (.store/write.lock)…\n");
  // undefined: another memvoy process rebuilt the archive while this one planned or asked.
  const report = rescueBrokenArchive(err.data.detail, home);
  // What the rebuild leaves to a first encounter (records without ids, as Agenvoy writes them, in sessions the
  // archive already holds) is adopted now, as doctor --repair adopts it in any home.
  const after = await using(openFromFlags(p, "doctor"), (api) => api.doctor({ repair: true }));
  if (json)
    printJson({
      broken: plan,
      repaired: true,
      movedAside: report?.movedAside ?? [],
      messages: report?.messages,
      ...(report ? {} : { rebuiltElsewhere: true }),
      findings: after.findings,
    });
  else {
    say(
      report
        ? `moved ${report.movedAside.join(", ")} aside; rebuilt the archive with ${report.messages} message(s)`
        : "another memvoy process rebuilt the archive meanwhile: nothing more to rebuild",
    );
    for (const f of after.findings)
      say(`${f.session ? `${f.session}: ` : ""}${f.problem}${f.repaired ? ` -> repaired: ${f.repaired}` : ""}`);
  }
  return after.ok ? 0 : 1;
}

/** Run the index upgrade to the end (or until Ctrl-C); false when stopped. */
async function migrate(api: HomeMemory, json: boolean): Promise<boolean> {
  const before = api.indexUpgrade();
  if (before.done) {
    if (!json) say("keyword index: up to date");
    return true;
  }
  const bar = redrawsInPlace(process.stderr) ? progressBar(process.stderr) : undefined;
  if (!json) {
    const earlier = before.copied > 0 ? ` (${upgradeDone(before)}% done earlier)` : "";
    say(`keyword index: upgrading ${before.messages} messages${earlier}`);
  }
  // The upgrade goes over the messages once per step: the bar shows its share of the whole in messages, as said above.
  const inMessages = (done: number, total: number) => Math.round((done / Math.max(1, total)) * before.messages);
  const r = await withInterrupt((signal) =>
    api.upgradeIndex({
      signal,
      progress: (done, total) =>
        bar?.update(inMessages(done, total), before.messages, inMessages(before.copied, before.total)),
    }),
  );
  bar?.done();
  // Stopped, --json still prints its one document: how far the upgrade got (the check is not run).
  if (json && !r.done)
    printJson({ keywordIndex: { upgraded: false, percentDone: upgradeDone(api.indexUpgrade()) }, interrupted: true });
  if (!json)
    say(
      r.done
        ? `keyword index: upgraded (${r.copied} messages in ${(r.ms / 1000).toFixed(1)} s)`
        : "keyword index: stopped; run memvoy doctor --migrate again to resume",
    );
  return r.done;
}

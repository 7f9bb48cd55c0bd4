// memvoy doctor [--repair] [--migrate]: check history.json files against the archive; repair what can be
// repaired; run the keyword index upgrade now (the daemon otherwise runs it in the background).
import { bool } from "../args.ts";
import { withInterrupt, withMemory, type CommandSpec } from "../command.ts";
import { printJson, println } from "../output.ts";
import { progressBar } from "../progress.ts";
import type { HomeMemory } from "../../app/memory-api.ts";

export const usage = `
Usage: memvoy doctor [--repair] [--migrate] [--json]

Check the home: SQLite integrity, and every session's history.json against the
archive. --repair moves a corrupt history.json aside (history.json.corrupt-TIME)
and rebuilds it from the archive, which holds every message. Exit code 1 when a
problem is left unrepaired.

--migrate runs the keyword index upgrade now, with a progress bar: a new index
with a session column, so that a search in one session stays fast on a large
archive. The daemon runs it in the background otherwise. Writes and searches go
on meanwhile (search uses the current index until the new one is complete);
stopped with Ctrl-C, it resumes where it left off.
`;

const spec: CommandSpec = { name: "doctor", usage, flags: { repair: { type: "boolean" }, migrate: { type: "boolean" } }, positionals: [] };

export function run(argv: readonly string[]): Promise<number> {
  return withMemory(spec, argv, async (api, p) => {
    if (bool(p, "migrate") && !(await migrate(api, bool(p, "json")))) return 130;
    const r = api.doctor({ repair: bool(p, "repair") });
    if (bool(p, "json")) printJson(r);
    else {
      println(`home ${r.home}: ${r.sessions} session(s)`);
      for (const f of r.findings) println(`${f.session ? `${f.session}: ` : ""}${f.problem}${f.repaired ? ` -> repaired: ${f.repaired}` : ""}`);
      println(r.findings.length === 0 ? "all good" : r.ok ? "all problems repaired" : "problems found; run memvoy doctor --repair");
    }
    return r.ok ? 0 : 1;
  });
}

/** Run the index upgrade to the end (or until Ctrl-C); false when stopped. */
async function migrate(api: HomeMemory, json: boolean): Promise<boolean> {
  const before = api.indexUpgrade();
  if (before.done) {
    if (!json) println("keyword index: up to date");
    return true;
  }
  const bar = process.stderr.isTTY ? progressBar(process.stderr) : undefined;
  if (!json) println(`keyword index: upgrading (${before.copied}/${before.total} messages done earlier)`);
  const r = await withInterrupt((signal) => api.upgradeIndex({ signal, progress: (done, total) => bar?.update(done, total) }));
  bar?.done();
  if (!json) println(r.done ? `keyword index: upgraded (${r.copied} messages in ${(r.ms / 1000).toFixed(1)} s)` : "keyword index: stopped; run memvoy doctor --migrate again to resume");
  return r.done;
}

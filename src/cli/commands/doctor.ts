// memvoy doctor [--repair]: check history.json files against the archive; repair what can be repaired.
import { bool } from "../args.ts";
import { withMemory, type CommandSpec } from "../command.ts";
import { printJson, println } from "../output.ts";

export const usage = `
Usage: memvoy doctor [--repair] [--json]

Check the home: SQLite integrity, and every session's history.json against the
archive. --repair moves a corrupt history.json aside (history.json.corrupt-TIME)
and rebuilds it from the archive, which holds every message. Exit code 1 when a
problem is left unrepaired.
`;

const spec: CommandSpec = { name: "doctor", usage, flags: { repair: { type: "boolean" } }, positionals: [] };

export function run(argv: readonly string[]): Promise<number> {
  return withMemory(spec, argv, (api, p) => {
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

// memvoy demo [--home DIR]: create a demo home (sessions in English and Traditional Chinese, summaries,
// error records) through the real write path, then say how to open it. No API key needed.
import { seedDemoHome } from "../../app/demo/seed-demo.ts";
import { resolveHome } from "../../config/home.ts";
import { makeTempFolder } from "../../shared/folder-made.ts";
import { invocation, quoteArg } from "../../app/invocation.ts";
import { bool, str, type Parsed } from "../args.ts";
import { runCommand, type CommandSpec } from "../command.ts";
import { bold, printJson, println } from "../output.ts";

export const usage = `
Usage: memvoy demo [--home DIR] [--json]

Create a demo home: six sessions (English and Traditional Chinese, one long enough
to have archived messages), four rolling summaries and five error-memory records,
written through the same path agents use. No API key or network is needed.

  --home DIR   where to create it: a new or empty folder (default: a new folder
               under the system temp directory; your own home is never touched)
`;

const spec: CommandSpec = { name: "demo", usage, positionals: [] };

export function run(argv: readonly string[]): Promise<number> {
  return runCommand(spec, argv, demo);
}

async function demo(p: Parsed): Promise<number> {
  // --home=~/demo as the other commands read it (the shell leaves a ~ after "=" as it is).
  const given = str(p, "home");
  const home = given !== undefined ? resolveHome(given) : makeTempFolder("memvoy-demo-");
  const r = await seedDemoHome(home);
  if (bool(p, "json")) {
    printJson(r);
    return 0;
  }
  const q = quoteArg(r.home);
  const memvoy = invocation();
  println(`Created a demo home in ${r.home}`);
  println(
    `  ${r.sessions} sessions (English and Traditional Chinese), ${r.messages} messages, ${r.summaries} summaries, ${r.errors} error records`,
  );
  println();
  println(bold("Open it in the terminal UI:"));
  println(`  ${memvoy} --home ${q}`);
  println();
  println(bold("Or from the shell:"));
  println(`  ${memvoy} --home ${q} sessions`);
  println(`  ${memvoy} --home ${q} search "rollback" --match hybrid`);
  println(`  ${memvoy} --home ${q} search "快取"`);
  println(`  ${memvoy} --home ${q} summary deploy-pipeline`);
  println(`  ${memvoy} --home ${q} errors search "jq: command not found"`);
  return 0;
}

// memvoy __complete CWORD WORDS...: the candidates for WORDS[CWORD], one a line (used by the completion scripts).
import pkg from "../../../package.json" with { type: "json" };
import { commandSpecs } from "../command-specs.ts";
import { complete } from "../complete.ts";
import { writeOut } from "../../shared/stdout.ts";

export const usage = `
Usage: memvoy __complete CWORD WORDS...

Internal: print the completion candidates for WORDS[CWORD] (WORDS[0] is memvoy).
`;

export async function run(argv: readonly string[]): Promise<number> {
  const cword = Number(argv[0]);
  const words = argv.slice(1);
  if (!Number.isInteger(cword) || cword < 1) return 0;
  const out = complete(await commandSpecs(pkg.version), words, cword);
  if (out.length) writeOut(out.join("\n") + "\n");
  return 0;
}

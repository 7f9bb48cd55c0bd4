// memvoy completion bash|zsh|fish: print the shell's completion script; memvoy __complete answers it.
import { UsageError } from "../../shared/errors.ts";
import { bool, parseArgs } from "../args.ts";
import { printUsage } from "../command.ts";
import { SHELLS, type Shell } from "../completion-scripts.ts";

export const usage = `
Usage: memvoy completion bash|zsh|fish

Print the completion script for a shell: commands, sub-commands, flags, their values
and session ids (read from the home's folder listing, newest first, at most 200).

  bash   add to ~/.bashrc:        source <(memvoy completion bash)
  zsh    add to ~/.zshrc:         source <(memvoy completion zsh)   (after compinit)
  fish   run once:                memvoy completion fish > ~/.config/fish/completions/memvoy.fish

scripts/install.sh installs all three.
`;

export async function run(argv: readonly string[]): Promise<number> {
  const p = parseArgs(argv, {}, "completion");
  if (bool(p, "help")) return printUsage(usage);
  const shell = p.positionals[0];
  if (shell === undefined) throw new UsageError("completion: name a shell: bash, zsh or fish (see memvoy completion --help)");
  if (p.positionals.length > 1) throw new UsageError(`completion: unexpected argument ${JSON.stringify(p.positionals[1])}`);
  if (!Object.hasOwn(SHELLS, shell)) throw new UsageError(`completion: unknown shell ${JSON.stringify(shell)}: use bash, zsh or fish`);
  process.stdout.write(SHELLS[shell as Shell]);
  return 0;
}

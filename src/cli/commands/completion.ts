// memvoy completion bash|zsh|fish: print the shell's completion script; memvoy __complete answers it.
import { CommandUsageError } from "../usage-errors.ts";
import { bool } from "../args.ts";
import { runCommand, type CommandSpec } from "../command.ts";
import { SHELLS, type Shell } from "../completion-scripts.ts";
import { writeOut } from "../../shared/stdout.ts";

export const usage = `
Usage: memvoy completion bash|zsh|fish [--json]

Print the completion script for a shell: commands, sub-commands, flags, their values
and session ids (read from the home's folder listing, newest first, at most 200).

  bash   add to ~/.bashrc:        source <(memvoy completion bash)
  zsh    add to ~/.zshrc:         source <(memvoy completion zsh)   (after compinit)
  fish   run once:                memvoy completion fish > ~/.config/fish/completions/memvoy.fish

scripts/install.sh installs all three. With --json: {"shell", "script"}.
`;

const spec: CommandSpec = { name: "completion", usage, positionals: ["SHELL"] };

export function run(argv: readonly string[]): Promise<number> {
  return runCommand(spec, argv, (p, [shell]) => {
    if (!Object.hasOwn(SHELLS, shell!))
      throw new CommandUsageError({
        problem: "unknown-choice",
        command: "completion",
        what: "shell",
        value: shell!,
        choices: Object.keys(SHELLS),
      });
    const script = SHELLS[shell as Shell];
    writeOut(bool(p, "json") ? JSON.stringify({ shell, script }, null, 2) + "\n" : script);
    return 0;
  });
}

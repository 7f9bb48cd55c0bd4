// A word as typed on a shell's command line, read as the shell will pass it to the command: quotes and escapes
// removed, ~ and $NAME / ${NAME} expanded from the environment. Completion gets the words unexpanded.

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

/**
 * The value of `word` once the shell has expanded it, or the word as it is when it holds what only the shell
 * can work out (a command substitution, ${NAME:-default}, an unclosed quote): never a guess.
 */
export function shellWord(word: string, env: Record<string, string | undefined>): string {
  let out = "";
  let quote: "'" | '"' | undefined;
  let i = 0;
  if (env.HOME && (word === "~" || word.startsWith("~/"))) {
    out = env.HOME;
    i = 1;
  }
  while (i < word.length) {
    const c = word[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else out += c;
      i++;
      continue;
    }
    if (c === "\\") {
      const next = word[i + 1];
      if (next === undefined) return word;
      // Inside double quotes a backslash escapes only $ ` " \ (else it stays).
      if (quote === '"' && !'$`"\\'.includes(next)) out += c;
      out += next;
      i += 2;
      continue;
    }
    if (c === "$") {
      const braced = word[i + 1] === "{";
      const rest = word.slice(i + (braced ? 2 : 1));
      const name = NAME.exec(rest)?.[0];
      if (name === undefined || (braced && rest[name.length] !== "}")) return word;
      out += env[name] ?? "";
      i += (braced ? 3 : 1) + name.length;
      continue;
    }
    if (c === "`") return word;
    if (c === '"' && quote === '"') quote = undefined;
    else if ((c === '"' || c === "'") && quote === undefined) quote = c;
    else out += c;
    i++;
  }
  return quote === undefined ? out : word;
}

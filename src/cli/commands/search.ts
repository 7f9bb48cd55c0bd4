// memvoy search QUERY [--session S] [--match M] [--range R] [--since T] [--until T] [--role R] [--sender N] [--limit N]
import { CommandUsageError } from "../usage-errors.ts";
import { assertSessionId } from "../../shared/session-id.ts";
import { nsToLocalSeconds, parseTime, type TimeRange } from "../../shared/time.ts";
import type { MatchMode } from "../../app/memory-api.ts";
import { bool, num, str } from "../args.ts";
import { runCommand, type CommandSpec } from "../run-command.ts";
import { FILTER_FLAGS, FILTER_USAGE, filterOptions } from "../filter-flags.ts";
import { cyan, dim, highlight, printJson, println } from "../output.ts";
import { inlineText, lineText, terminalText } from "../../shared/terminal-text.ts";
import { searchJson } from "../../app/api/json-shapes.ts";
import type { SearchResultJson } from "../../app/api/json-types.ts";
import { homePaths, resolveHome } from "../../config/home.ts";
import { loadConfigCached } from "../../config/load-cached.ts";
import { searchViaDaemon, type CliSearch } from "../ask-daemon.ts";

export const usage = `
Usage: memvoy search QUERY [--session S] [--match keyword|semantic|hybrid] [--range 1d|7d|30d|1y|all]
                    [--since TIME] [--until TIME] [--role user|assistant] [--sender NAME] [--limit N] [--json]

Search what was said. The query is plain text: quotes, AND, *, NEAR( or a leading -
are just characters. A query that starts with - goes after --, with the options
before it: memvoy search --session S -- -x

  keyword   full-text over the archive (stemmed English; any CJK substring) plus a
            case-insensitive substring match over recent messages
  semantic  vector similarity over recent messages; each hit comes with the 2 messages
            before it and the 1 after. The builtin embedder (the offline default) mixes
            English word vectors with hashed character n-grams: it finds related words
            and near-spellings in English, and shared characters in CJK, but it is not a
            language model. For real paraphrase matching set [embedder] in config.toml
            to openai, ollama or voyage, then run memvoy reindex
  hybrid    keyword and semantic fused: what either side finds, ranked together

  --session S   only this session (default: all sessions)
  --match M     keyword (default), semantic or hybrid
  --range R     1d, 7d, 30d, 1y or all (default all); with --since the later bound wins
  --limit N     at most N hits (default 10)
  --local       search in this process. By default, when the daemon runs for the home
                (same memvoy, same config), it answers: its index is open and warm, and
                its worker has the vectors loaded. The hits are the same either way
${FILTER_USAGE}
`;

const spec: CommandSpec = {
  name: "search",
  usage,
  flags: {
    session: { type: "string", short: "s" },
    match: { type: "string" },
    range: { type: "string" },
    limit: { type: "number", short: "n" },
    local: { type: "boolean" },
    ...FILTER_FLAGS,
  },
  check: (p) => {
    if (p.positionals.length === 0)
      throw new CommandUsageError({ problem: "missing-argument", command: "search", argument: "QUERY" });
    const session = str(p, "session");
    if (session !== undefined) assertSessionId(session);
  },
};

export function run(argv: readonly string[]): Promise<number> {
  return runCommand(spec, argv, async (p) => {
    const query = p.positionals.join(" ");
    const search: CliSearch = {
      query,
      session: str(p, "session"),
      match: str(p, "match") as MatchMode | undefined,
      range: str(p, "range") as TimeRange | undefined,
      limit: num(p, "limit"),
      ...filterOptions(p),
    };
    const paths = homePaths(resolveHome(p.flags.home as string | undefined, process.env));
    const config = loadConfigCached(paths.config, process.env);
    const answered = bool(p, "local") ? undefined : await searchViaDaemon(paths, config, search);
    // The home's own stack (storage, search) loads only when this process searches.
    const result =
      answered ??
      (await (
        await import("../command.ts")
      ).usingAnyHome(p, spec.name, async (api) => searchJson(query, await api.search(search)), true, config, true));
    if (bool(p, "json")) {
      printJson(result);
      return 0;
    }
    printHits(result);
    return 0;
  });
}

/** The query as the no-match line names it: a pasted log or stack trace by its start (as a symbol piece is named). */
const shownQuery = (query: string) => {
  const chars = Array.from(query);
  return JSON.stringify(chars.length > 80 ? `${chars.slice(0, 79).join("")}…` : query);
};

/** The hits for a person: one header line and the snippet each, and a semantic hit's context run once. */
function printHits(result: SearchResultJson): void {
  for (const note of result.notes) process.stderr.write(`memvoy: ${note}\n`);
  if (result.hits.length === 0)
    println(dim(`no matches for ${shownQuery(result.query)}${result.emptyReason ? `: ${result.emptyReason}` : ""}`));
  // Hits of one merged run carry the same context: it is printed once.
  const shownRuns = new Set<string>();
  for (const h of result.hits) {
    const at = nsToLocalSeconds(parseTime(h.sendAt)!);
    println(
      `${cyan(h.session)} ${dim(`${at} · ${h.role}${h.sender ? ` · ${lineText(h.sender)}` : ""} · ${h.source} ${h.score.toFixed(3)}`)}`,
    );
    println(`  ${highlight(inlineText(h.snippet), h.highlights)}`);
    const run = h.context?.map((c) => c.id).join(" ");
    if (h.context && run !== undefined && !shownRuns.has(run)) {
      shownRuns.add(run);
      for (const c of h.context)
        println(
          dim(
            `    ${c.hit ? ">" : "|"} ${c.role}${c.sender ? ` · ${lineText(c.sender)}` : ""}: ${oneLine(terminalText(c.content))}`,
          ),
        );
    }
  }
}

function oneLine(text: string, width = 100): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > width ? t.slice(0, width - 1) + "…" : t;
}

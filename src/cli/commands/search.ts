// memvoy search QUERY [--session S] [--match M] [--range R] [--limit N]
import { UsageError } from "../../shared/errors.ts";
import { assertSessionId } from "../../shared/session-id.ts";
import { nsToLocalSeconds, type TimeRange } from "../../shared/time.ts";
import type { MatchMode, SearchHit } from "../../search/search-types.ts";
import { bool, num, parseArgs, str } from "../args.ts";
import { openFromFlags, printUsage } from "../command.ts";
import { cyan, dim, highlight, messageJson, printJson, println } from "../output.ts";

export const usage = `
Usage: memvoy search QUERY [--session S] [--match keyword|semantic|hybrid] [--range 1d|7d|30d|1y|all] [--limit N] [--json]

Search what was said. keyword: full-text over the archive (stemmed English; any CJK
substring) plus a case-insensitive substring match over recent messages. The query is
plain text: quotes, AND, *, NEAR( or a leading - are just characters.

  --session S   only this session (default: all sessions)
  --match M     keyword (default), semantic or hybrid
  --range R     1d, 7d, 30d, 1y or all (default all)
  --limit N     at most N hits (default 10)
`;

export async function run(argv: readonly string[]): Promise<number> {
  const p = parseArgs(argv, { session: { type: "string", short: "s" }, match: { type: "string" }, range: { type: "string" }, limit: { type: "number", short: "n" } }, "search");
  if (bool(p, "help")) return printUsage(usage);
  if (p.positionals.length === 0) throw new UsageError("search: missing QUERY (see memvoy search --help)");
  const query = p.positionals.join(" ");
  const session = str(p, "session");
  if (session !== undefined) assertSessionId(session);
  const api = openFromFlags(p);
  try {
    const result = await api.search({
      query,
      session,
      match: str(p, "match") as MatchMode | undefined,
      range: str(p, "range") as TimeRange | undefined,
      limit: num(p, "limit"),
    });
    if (bool(p, "json")) {
      printJson({ query, hits: result.hits.map(hitJson), notIndexed: result.notIndexed ?? 0, reindexNeeded: result.reindexNeeded ?? false, notes: result.notes });
      return 0;
    }
    for (const note of result.notes) process.stderr.write(`memvoy: ${note}\n`);
    if (result.hits.length === 0) println(dim(`no matches for ${JSON.stringify(query)}`));
    for (const h of result.hits) {
      const m = h.message;
      println(`${cyan(m.session)} ${dim(`${nsToLocalSeconds(m.sendAt)} · ${m.role}${m.sender ? ` · ${m.sender}` : ""} · ${h.source} ${h.score.toFixed(3)}`)}`);
      println(`  ${highlight(h.snippet, h.highlights)}`);
    }
    return 0;
  } finally {
    api.close();
  }
}

function hitJson(h: SearchHit): Record<string, unknown> {
  const o: Record<string, unknown> = { ...messageJson(h.message), source: h.source, score: h.score, snippet: h.snippet, highlights: h.highlights };
  if (h.rank !== undefined) o.rank = h.rank;
  if (h.context) o.context = h.context.map((c) => ({ ...messageJson(c), hit: c.id === h.message.id }));
  return o;
}


// Words of a query in the shared archive, for the embedded ranking rules that ask the index about them (coverage.ts):
// whether any is held, and each one's rarity (its rows counted by the archive's full-text index, up to a cap).
import { heldUnder, idfWeights, type TermWeights } from "../../search/coverage.ts";
import { ftsPhrases, queryForms, queryTerms, type QueryTerm } from "../../search/query-terms.ts";
import { textQueryOf } from "../../search/text-query.ts";
import type { TextQuery } from "../../storage/ports/archive-port.ts";
import type { SharedContext } from "./shared-context.ts";

/** A word's rows are counted up to this many for its rarity (a commoner word weighs about the same). */
const RARITY_CAP = 50_000;

/**
 * The embedded mostlyUnheld (coverage.ts) over the archive: the query's terms weighted by their rarity there, when
 * those some message holds weigh less than `share` of them; undefined else (and when every term is held).
 */
export async function mostlyUnheld(ctx: SharedContext, text: string, share: number): Promise<TermWeights | undefined> {
  const terms = queryTerms(text);
  const queries = termQueries(terms);
  if (!queries) return undefined;
  const held = await Promise.all(queries.map(async (q) => !!q && (await ctx.archive.countText(q, 1)) > 0));
  if (held.every(Boolean)) return undefined;
  const tw = await archiveWeights(ctx, terms);
  return tw && heldUnder(tw, held, share);
}

/** The embedded termWeights (coverage.ts) over the archive: each term by its rarity there (its rows, counted). */
export async function archiveWeights(
  ctx: SharedContext,
  terms: readonly QueryTerm[],
): Promise<TermWeights | undefined> {
  const queries = termQueries(terms);
  if (!queries) return undefined;
  const [rows, counts] = await Promise.all([
    ctx.archive.countMessages(),
    Promise.all(queries.map((q) => (q ? ctx.archive.countText(q, RARITY_CAP) : 0))),
  ]);
  return idfWeights(weighedPhrases(terms), counts, rows);
}

/** The phrases a term share weighs (coverage.ts): one per content term, prefixes aside. */
const weighedPhrases = (terms: readonly QueryTerm[]) => ftsPhrases(terms).filter((p) => p.kind !== "prefix");

/** Each weighed phrase's term as its own query; undefined when they do not map one to one. */
function termQueries(terms: readonly QueryTerm[]): (TextQuery | undefined)[] | undefined {
  const content = terms.filter((t) => !t.stop);
  const used = content.length > 0 ? content : terms;
  const phrases = weighedPhrases(terms);
  if (phrases.length === 0 || phrases.length !== used.length) return undefined;
  return used.map((t) => textQueryOf([t], "all"));
}

/**
 * The embedded noSharedWord (coverage.ts) over the archive: whether no message holds any of the query's words, in
 * either form it is looked for in. A query of no word (symbols alone: `=>`) is not one: it has no word to hold.
 */
export async function noSharedWord(ctx: SharedContext, text: string): Promise<boolean> {
  for (const asTyped of queryForms(text)) {
    const terms = queryTerms(text, { asTyped });
    const content = terms.filter((t) => !t.stop);
    const q = textQueryOf(content.length > 0 ? content : terms, "any");
    if (!q || (await ctx.archive.countText(q, 1)) > 0) return false;
  }
  return true;
}

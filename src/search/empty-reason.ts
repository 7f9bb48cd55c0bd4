// Why a search has no hit: no message holds the query's terms (or none is close in meaning), or one of its symbol
// pieces as written, or some do and the filters leave every one out.
import type { MessageFilter } from "../shared/time-filter.ts";
import type { TimeRange } from "../shared/time.ts";

export const NO_TERMS = "no message holds the query's terms";
/** The start of semantic mode's reasons for an answer with no hit close enough (see semanticEmptyReason). */
export const NO_CLOSE = "no close matches";

const NO_TERMS_FOUND = "messages hold the query's terms";

type Narrowing = { range?: TimeRange; filter?: MessageFilter; session?: string };
/** How many other sessions hold the query's terms; `more`: at least that many (the look-up stopped there). */
export type Elsewhere = { count: number; more: boolean };
/** At most this many messages of other sessions are looked at to count the sessions holding the query's terms. */
export const ELSEWHERE_ROWS = 200;

/** The sessions other than `session` among the hits of a search of every session (`rows` asked, `sessions` found). */
export function elsewhere(session: string, sessions: readonly string[], rows: number): Elsewhere {
  const others = new Set(sessions.filter((s) => s !== session));
  return { count: others.size, more: sessions.length >= rows };
}

/** What narrowed the search: time (range, since, until), role, sender. */
function narrowedBy(o: Narrowing): string[] {
  const f = o.filter ?? {};
  const by: string[] = [];
  if ((o.range !== undefined && o.range !== "all") || f.since !== undefined || f.until !== undefined) by.push("time");
  if (f.role !== undefined) by.push("role");
  if (f.sender !== undefined) by.push("sender");
  return by;
}

/** The reason when messages match (`found`: they hold the query's terms, or are close to it) but none passes the filters. */
function filteredOutReason(by: string[], found: string): string {
  if (by.length === 1 && by[0] === "time") return `${found}, but none falls in the time range`;
  const names = by.length === 1 ? by[0] : `${by.slice(0, -1).join(", ")} and ${by.at(-1)}`;
  return `${found}, but none passes the ${names} filter${by.length > 1 ? "s" : ""}`;
}

/**
 * An empty result's reason, corrected when it blames the terms (or, in semantic mode, the closeness) of a narrowed
 * search: `anyUnfiltered` looks for one hit of the same kind with no filter (a one-row search, run only for an
 * empty, narrowed answer). A search of one session whose messages hold none of the query's terms (or none close to
 * it) says so, and how many other sessions hold them: `others` counts them (run only then).
 */
export async function explainEmpty(
  reason: string | undefined,
  o: Narrowing,
  anyUnfiltered: () => boolean | Promise<boolean>,
  others?: () => Elsewhere | Promise<Elsewhere>,
): Promise<string | undefined> {
  const by = narrowedBy(o);
  if (reason === undefined) return reason;
  const found = reason.startsWith(NO_TERMS)
    ? NO_TERMS_FOUND
    : reason.startsWith(NO_CLOSE)
      ? "messages are close to the query"
      : undefined;
  if (found === undefined) return reason;
  if (by.length > 0 && (await anyUnfiltered())) return filteredOutReason(by, found);
  // Of semantic reasons, only the score's: the others speak of every message (a word or name none holds).
  const scored = reason.startsWith(`${NO_CLOSE} (nothing scored`);
  if (o.session === undefined || others === undefined || (found !== NO_TERMS_FOUND && !scored)) return reason;
  const elsewhere = await others();
  if (elsewhere.count === 0) return reason;
  const n = elsewhere.count;
  const sessions = otherSessions(elsewhere);
  const one = n === 1;
  const hold = `${sessions} hold${one ? "s" : ""} the query's terms`;
  if (scored) return `${NO_CLOSE} in session ${o.session}${reason.slice(NO_CLOSE.length)}; ${hold}`;
  // "and nothing is semantically close (2 other sessions do)" would be read as close: the terms are named then.
  const rest = reason.slice(NO_TERMS.length);
  const held = rest === "" ? `${sessions} ${one ? "does" : "do"}` : hold;
  return `no message in session ${o.session} holds the query's terms${rest} (${held})`;
}

/** "2 other sessions", "at least 1 other session" (the look-up stopped at one session's many messages). */
function otherSessions(e: Elsewhere): string {
  return `${e.more ? "at least " : ""}${e.count} other session${e.count === 1 ? "" : "s"}`;
}

/** What a query naming someone or something no message mentions (coverage.ts unknownNames) was told. */
export function unknownNamesReason(names: readonly string[]): string {
  return `no message mentions ${names.map((n) => JSON.stringify(n)).join(" or ")}, a name in the query`;
}

/** At most this many of a query's symbol pieces are looked up one by one (a pasted stack trace has hundreds). */
const PIECES_LOOKED_UP = 32;

/**
 * The reason of an empty answer to a query with symbol pieces (symbols.ts: every hit of every mode holds each as
 * written) when one of them is in no message of the scope, whatever the filters: that piece is why, not the terms
 * or the scores. `held` looks one piece up (a one-row search of the piece alone, with no filter); undefined when
 * each piece looked up is held. Of a search of one session, `others` counts the other sessions holding the piece.
 */
export async function unheldPieceReason(
  pieces: readonly string[],
  held: (piece: string) => boolean | Promise<boolean>,
  session?: string,
  others?: (piece: string) => Elsewhere | Promise<Elsewhere>,
): Promise<string | undefined> {
  for (const piece of pieces.slice(0, PIECES_LOOKED_UP)) {
    if (await held(piece)) continue;
    const shown = JSON.stringify(piece.length > 80 ? `${piece.slice(0, 79)}…` : piece);
    const why = "symbols, paths and code in a query match exactly";
    if (session === undefined || others === undefined) return `no message holds ${shown} as written (${why})`;
    const e = await others(piece);
    const n = e.count;
    const also = n === 0 ? "" : `${otherSessions(e)} ${n === 1 ? "does" : "do"}; `;
    return `no message in session ${session} holds ${shown} as written (${also}${why})`;
  }
  return undefined;
}

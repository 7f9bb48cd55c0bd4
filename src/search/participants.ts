// Participant names in a query: "what did Caroline research?" asks about Caroline's own messages,
// which rarely contain her name. The name is taken out of the text to match and becomes a sender preference.
import type { Db } from "../storage/sqlite/db.ts";
import { knownSenders } from "../storage/sqlite/semantic-queries.ts";
import { sameSender } from "../shared/time-filter.ts";

export interface QueryFocus {
  /** The query without participant names (the original when nothing else would remain). */
  text: string;
  /** The one participant the query names, if exactly one. */
  sender?: string;
}

/**
 * One form for the letters a case-insensitive Unicode expression takes as one (ß and ẞ, K and the Kelvin sign, σ
 * and ς): each character alone (no final-sigma context) through lower, upper and lower case. Equal forms are
 * necessary for a match, not sufficient.
 */
const caseless = (s: string) => Array.from(s, (c) => c.toLowerCase().toUpperCase().toLowerCase()).join("");
/** The caseless forms of a list of names (the lists come from a per-connection cache: the same array each search). */
const caselessLists = new WeakMap<readonly string[], string[]>();
const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export function queryFocus(query: string, senders: readonly string[]): QueryFocus {
  let text = query;
  const named: string[] = [];
  // A name the query cannot hold in any case is not looked for (a Unicode regular expression per name costs).
  const folded = caseless(query);
  let names = caselessLists.get(senders);
  if (!names) caselessLists.set(senders, (names = senders.map(caseless)));
  for (const [i, s] of senders.entries()) {
    if (s.trim().length < 2 || !folded.includes(names[i]!)) continue;
    const re = new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegex(s)}(?:['’]s)?(?![\\p{L}\\p{N}])`, "giu");
    if (!re.test(text)) continue;
    named.push(s);
    text = text.replace(re, " ");
  }
  if (named.length === 0) return { text: query };
  const rest = text.replace(/\s+/g, " ").trim();
  const focus: QueryFocus = { text: /[\p{L}\p{N}]/u.test(rest) ? rest : query };
  if (named.length === 1) focus.sender = named[0]!;
  return focus;
}

/** Messages of other senders score this share when the query names one participant (keyword tier; tuned on LoCoMo dev). */
export const SENDER = { otherFactor: 0.7 };

/** The query's focus among the senders this session (or every session) knows. */
export function senderFocus(db: Db, query: string, session?: string): QueryFocus {
  return queryFocus(query, knownSenders(db, session));
}

/**
 * A hit's score factor under a focus: 1 for the named sender's messages, in any ASCII case as --sender matches them
 * (Alice and alice are one participant), or when none is named.
 */
export const senderFactor = (focus: QueryFocus, sender: string | undefined, other = SENDER.otherFactor) =>
  focus.sender !== undefined && !sameSender(sender, focus.sender) ? other : 1;

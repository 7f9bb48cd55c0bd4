// opencode forks: a fork (/fork in the TUI, the API's session fork) is a new session with no link back, holding copies
// of the messages before the chosen one: new ids, but the role, text and creation time of the originals. Copies are
// told by that time (before the fork session was made) and found in the session they came from.
import type { ImportedMessage } from "../import-types.ts";

export interface ForkCandidate {
  id: string;
  /** The session's creation time, epoch ms. */
  createdMs: number;
  messages: ImportedMessage[];
}

const same = (m: ImportedMessage) => `${m.role}\0${m.sendAt}\0${m.content}`;

/**
 * The messages of `fork` copied from an earlier session of `others`, and that session: the one holding most of them
 * (a fork of a fork holds the first fork's own turns too, so it names that fork; on a tie, where two sessions hold
 * only the same copies, the earlier: the one they were copied from first). Undefined when none is found.
 */
export function forkOrigin(
  fork: ForkCandidate,
  others: Iterable<ForkCandidate>,
): { parent: string; copies: Set<string> } | undefined {
  const createdNs = BigInt(Math.round(fork.createdMs)) * 1_000_000n;
  const early = fork.messages.filter((m) => m.sendAt < createdNs);
  if (early.length === 0) return undefined;
  const wanted = new Set(early.map(same));
  const times = new Set(early.map((m) => m.sendAt));
  let best: { parent: string; held: Set<string>; createdMs: number } | undefined;
  for (const o of others) {
    if (o.id === fork.id || !(o.createdMs < fork.createdMs)) continue;
    const held = new Set<string>();
    for (const m of o.messages) {
      if (!times.has(m.sendAt)) continue;
      const k = same(m);
      if (wanted.has(k)) held.add(k);
    }
    if (held.size === 0) continue;
    if (!best || held.size > best.held.size || (held.size === best.held.size && o.createdMs < best.createdMs))
      best = { parent: o.id, held, createdMs: o.createdMs };
  }
  if (!best) return undefined;
  const held = best.held;
  return { parent: best.parent, copies: new Set(early.filter((m) => held.has(same(m))).map((m) => m.key)) };
}

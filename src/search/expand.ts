// Context expansion of semantic hits: 2 messages before and 1 after in the session's recent order;
// expansions that overlap are merged into one run shared by the hits inside it.
import type { StoredMessage } from "../shared/message.ts";
import type { Db } from "../storage/sqlite/db.ts";
import { recentNeighbours } from "../storage/sqlite/semantic-queries.ts";

export const EXPAND_BEFORE = 2;
export const EXPAND_AFTER = 1;

/** For each hit (in order), the merged run of messages around it. */
export function expandHits(db: Db, hits: readonly StoredMessage[]): StoredMessage[][] {
  const runs = hits.map((h) => {
    const around = recentNeighbours(db, h.session, h.seq, EXPAND_BEFORE, EXPAND_AFTER);
    return [...around, h];
  });
  return mergeRuns(hits, runs);
}

/** For each hit, its run (the hit and its neighbours) merged with every run it overlaps, in seq order. */
export function mergeRuns(hits: readonly StoredMessage[], runs: readonly StoredMessage[][]): StoredMessage[][] {
  // Union-find over hits whose runs share a message.
  const parent = hits.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  const owner = new Map<string, number>();
  runs.forEach((run, i) => {
    for (const m of run) {
      const j = owner.get(m.id);
      if (j === undefined) owner.set(m.id, i);
      else parent[find(i)] = find(j);
    }
  });
  const merged = new Map<number, Map<string, StoredMessage>>();
  runs.forEach((run, i) => {
    const root = find(i);
    const group = merged.get(root) ?? new Map<string, StoredMessage>();
    for (const m of run) group.set(m.id, m);
    merged.set(root, group);
  });
  const sorted = new Map<number, StoredMessage[]>();
  for (const [root, group] of merged)
    sorted.set(
      root,
      [...group.values()].sort((a, b) => (a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0)),
    );
  return hits.map((_, i) => sorted.get(find(i))!);
}

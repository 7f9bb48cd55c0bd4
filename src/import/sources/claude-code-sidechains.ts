// Claude Code transcripts before 2.0.28 hold their sub-agents' conversations inline, marked isSidechain: the chains
// of those records, each named by its first record, with the chains' tips carried from one pass to the next.
import { isObject } from "../read-lines.ts";
import type { ChainEntry } from "./claude-code-text.ts";

/** How many inline sub-agent chains a transcript's state remembers the tip of (the most recent ones). */
const MAX_CARRIED_CHAINS = 64;

/** Inline sub-agent records grouped by chain: a record whose parent is no known sidechain record starts one. */
export class Sidechains<T> {
  /** Sidechain record uuid -> its chain's first record (the chain's name). */
  private readonly rootOf = new Map<string, string>();
  /** Chain name -> its last record's uuid, in the order chains were last extended. */
  private readonly tip = new Map<string, string>();
  private readonly entries = new Map<string, ChainEntry<T>[]>();
  private readonly carried = new Set<string>();

  constructor(state: unknown) {
    if (!isObject(state)) return;
    for (const [uuid, root] of Object.entries(state))
      if (typeof root === "string") {
        this.rootOf.set(uuid, root);
        this.tip.set(root, uuid);
        this.carried.add(root);
      }
  }

  get size(): number {
    return this.tip.size;
  }

  add(e: ChainEntry<T>): void {
    const root = (e.parent !== undefined ? this.rootOf.get(e.parent) : undefined) ?? e.uuid ?? `line-${e.line}`;
    if (e.uuid !== undefined) {
      this.rootOf.set(e.uuid, root);
      this.tip.delete(root);
      this.tip.set(root, e.uuid);
    }
    const list = this.entries.get(root);
    if (list) list.push(e);
    else this.entries.set(root, [e]);
  }

  /** Each chain read in this pass: its name, its records, and whether it started in this pass. */
  *chains(): Generator<[string, ChainEntry<T>[], boolean]> {
    for (const [root, list] of this.entries) yield [root, list, !this.carried.has(root)];
  }

  /** uuid -> chain name of the latest chains' tips, for the next pass. */
  tips(): Record<string, string> {
    return Object.fromEntries([...this.tip].slice(-MAX_CARRIED_CHAINS).map(([root, uuid]) => [uuid, root]));
  }
}

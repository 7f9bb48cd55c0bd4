// The keys that move a selection or scroll a view, in one table: each screen names the families it takes.
export type KeyFamily = "arrows" | "edges" | "emacs" | "vi" | "viPages";

type Motion = "up" | "down" | "pageUp" | "pageDown" | "top" | "bottom";

const FAMILIES: Record<KeyFamily, ReadonlyMap<string, Motion>> = {
  arrows: new Map([
    ["up", "up"],
    ["down", "down"],
    ["pageup", "pageUp"],
    ["pagedown", "pageDown"],
  ]),
  edges: new Map([
    ["home", "top"],
    ["end", "bottom"],
  ]),
  emacs: new Map([
    ["C-p", "up"],
    ["C-n", "down"],
  ]),
  vi: new Map([
    ["k", "up"],
    ["j", "down"],
  ]),
  viPages: new Map([
    ["b", "pageUp"],
    ["space", "pageDown"],
    ["g", "top"],
    ["S-g", "bottom"],
  ]),
};

/** A selection or a scroll position in a window of `height` rows: a list cursor, the history pane, a pager. */
export interface Movable {
  readonly height: number;
  move(delta: number): void;
  home(): void;
  end(): void;
}

/** One window's worth up or down, keeping one row of the last window in view. */
export function page(target: Movable, direction: 1 | -1): void {
  target.move(direction * Math.max(1, target.height - 1));
}

/** Moves `target` when `key` is a motion of one of `families`; false (nothing moved) when it is not. */
export function applyMotion(target: Movable, key: string | undefined, families: readonly KeyFamily[]): boolean {
  if (key === undefined) return false;
  const motion = families.map((f) => FAMILIES[f].get(key)).find((m) => m !== undefined);
  if (motion === "up" || motion === "down") target.move(motion === "up" ? -1 : 1);
  else if (motion === "pageUp" || motion === "pageDown") page(target, motion === "pageUp" ? -1 : 1);
  else if (motion === "top") target.home();
  else if (motion === "bottom") target.end();
  return motion !== undefined;
}

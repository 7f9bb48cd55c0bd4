// The history pane as lines: message headers by role, wrapped content, the archive marker, the hit gutter.
import type { HistoryViewport } from "../state/history-viewport.ts";
import type { Theme } from "../theme.ts";
import { renderLine, fitHeight } from "./segments.ts";

export function renderHistory(
  view: HistoryViewport,
  theme: Theme,
  width: number,
  height: number,
  emptyText: string,
): string[] {
  const lines: string[] = [];
  if (view.blockCount === 0) lines.push(renderLine(theme, width, [[emptyText, "dim"]]));
  for (const l of view.visible()) {
    const gutter: readonly [string, "hit"?] = l.hit ? ["▌ ", "hit"] : ["  "];
    if (l.kind === "marker") lines.push(renderLine(theme, width, [[l.text, "marker"]]));
    else if (l.kind === "header")
      lines.push(renderLine(theme, width, [gutter, [l.text, l.role === "user" ? "user" : "assistant"]]));
    else if (l.kind === "body") lines.push(renderLine(theme, width, [gutter, [l.text]]));
    else lines.push(renderLine(theme, width, [l.hit ? gutter : [""]]));
  }
  return fitHeight(lines, width, height);
}

/** Where the view is: "top", "end", or a percentage of the way from the top to the end. */
export function scrollLabel(view: HistoryViewport): string {
  if (view.blockCount === 0) return "";
  if (view.atTop() && view.atBottom()) return "all";
  if (view.atTop()) return "top";
  if (view.atBottom()) return "end";
  // Never 0% or 100% short of the top or the end.
  return `${Math.min(99, Math.max(1, Math.round(100 * view.progress())))}%`;
}

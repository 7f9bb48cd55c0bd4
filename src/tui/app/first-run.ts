// The first-run screen of an empty home: how to put data in, and the demo.
import { tildePath } from "../text/format.ts";
import { renderLine } from "../views/segments.ts";
import type { AppContext } from "./app-context.ts";

export function renderFirstRun(app: AppContext): void {
  const { layout, theme } = app;
  const inner = layout.inner(layout.overlay);
  const home = tildePath(app.api.home);
  const text: [string, ("title" | "key" | "dim")?][] = [
    ["Welcome to memvoy", "title"],
    [""],
    [`This home has no sessions yet: ${home}`],
    [""],
    ["Add a message from a shell:", "title"],
    [`  memvoy add my-session --role user --content "hello"`, "key"],
    ["Or pipe JSONL, one {role, content, sendAt?, sender?} per line:", "title"],
    ["  memvoy add my-session < conversation.jsonl", "key"],
    ["From an agent in TypeScript:", "title"],
    [`  import { openMemory } from "memvoy"; openMemory().add("my-session", {...})`, "key"],
    [""],
    ["Just looking? Create a demo home and open it:", "title"],
    ["  memvoy demo", "key"],
    [""],
    ["Ctrl-L reloads once data is there · ? help · q quit", "dim"],
  ];
  const top = Math.max(0, Math.floor((inner.height - text.length) / 3));
  const lines: string[] = [];
  for (let i = 0; i < top; i++) lines.push(" ".repeat(inner.width));
  for (const [t, style] of text) lines.push(renderLine(theme, inner.width, [["  "], [t, style]]));
  layout.setFocus(layout.overlay, false, " memvoy ");
  layout.setLines(layout.overlay, lines);
}

// The first-run screen of an empty home: how to put data in, and the demo.
import { invocation, quoteArg } from "../../app/invocation.ts";
import { tildePath } from "../text/format.ts";
import { wrapLines } from "../text/wrap.ts";
import { renderLine } from "../views/segments.ts";
import type { AppContext } from "./app-context.ts";

export function renderFirstRun(app: AppContext): void {
  const { layout, theme } = app;
  const inner = layout.inner(layout.overlay);
  const home = tildePath(app.api.home);
  const memvoy = invocation(); // `memvoy` is not on PATH in a source checkout
  const homeArg = quoteArg(app.api.home);
  const text: [string, ("title" | "key" | "dim")?][] = [
    ["Welcome to memvoy", "title"],
    [""],
    [`This home has no sessions yet: ${home}`],
    [""],
    ["Add a message from a shell:", "title"],
    [`  ${memvoy} --home ${homeArg} add my-session --role user --content "hello"`, "key"],
    ["Or pipe JSONL, one {role, content, sendAt?, sender?} per line:", "title"],
    [`  ${memvoy} --home ${homeArg} add my-session < conversation.jsonl`, "key"],
    ["From an agent in TypeScript:", "title"],
    [`  import { openMemory } from "memvoy";`, "key"],
    [
      `  await openMemory({ home: ${JSON.stringify(app.api.home)} }).add("my-session", { role: "user", content: "hello" });`,
      "key",
    ],
    [""],
    ["Just looking? Fill this home with demo data, then press Ctrl-L:", "title"],
    [`  ${memvoy} demo --home ${homeArg}`, "key"],
    [""],
    ["Ctrl-L reloads once data is there · ? help · q quit", "dim"],
  ];
  const top = Math.max(0, Math.floor((inner.height - text.length) / 3));
  const lines: string[] = [];
  for (let i = 0; i < top; i++) lines.push(" ".repeat(inner.width));
  // A command longer than the screen wraps (continued lines indented) rather than being cut.
  for (const [t, style] of text) {
    const indent = t.startsWith("  ") ? "    " : "";
    wrapLines(t, Math.max(8, inner.width - 6)).forEach((part, i) =>
      lines.push(renderLine(theme, inner.width, [["  "], [i === 0 ? part : indent + part.trimStart(), style]])),
    );
  }
  layout.setFocus(layout.overlay, false, " memvoy ");
  layout.setLines(layout.overlay, lines);
}

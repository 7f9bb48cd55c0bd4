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
  type Line = [string, ("title" | "key" | "dim")?];
  // On a short screen (a long home path wraps each command) the least needed blocks go first, so that the demo
  // command and the reload key always show: the TypeScript example, then the JSONL one.
  const blocks: { lines: Line[]; dropOrder?: number }[] = [
    { lines: [["Welcome to memvoy", "title"], [""], [`This home has no sessions yet: ${home}`], [""]] },
    {
      lines: [
        ["Add a message from a shell:", "title"],
        [`  ${memvoy} --home ${homeArg} add my-session --role user --content "hello"`, "key"],
      ],
    },
    {
      dropOrder: 2,
      lines: [
        ["Or pipe JSONL, one {role, content, sendAt?, sender?} per line:", "title"],
        [`  ${memvoy} --home ${homeArg} add my-session < conversation.jsonl`, "key"],
      ],
    },
    {
      dropOrder: 1,
      lines: [
        ["From an agent in TypeScript:", "title"],
        [`  import { openMemory } from "memvoy";`, "key"],
        [
          `  await openMemory({ home: ${JSON.stringify(app.api.home)} }).add("my-session", { role: "user", content: "hello" });`,
          "key",
        ],
      ],
    },
    {
      lines: [
        [""],
        ["Just looking? Fill this home with demo data, then press Ctrl-L:", "title"],
        [`  ${memvoy} demo --home ${homeArg}`, "key"],
        [""],
        ["Ctrl-L reloads once data is there · ? help · q quit", "dim"],
      ],
    },
  ];
  // A command longer than the screen wraps (continued lines indented) rather than being cut.
  const rows = (lines: Line[]) =>
    lines.flatMap(([t, style]) => {
      const indent = t.startsWith("  ") ? "    " : "";
      return wrapLines(t, Math.max(8, inner.width - 6)).map((part, i) =>
        renderLine(theme, inner.width, [["  "], [i === 0 ? part : indent + part.trimStart(), style]]),
      );
    });
  let shown = blocks.map((b) => ({ ...b, rows: rows(b.lines) }));
  const height = () => shown.reduce((n, b) => n + b.rows.length, 0);
  for (const drop of [1, 2]) if (height() > inner.height) shown = shown.filter((b) => b.dropOrder !== drop);
  const top = Math.max(0, Math.floor((inner.height - height()) / 3));
  const lines: string[] = [];
  for (let i = 0; i < top; i++) lines.push(" ".repeat(inner.width));
  for (const b of shown) lines.push(...b.rows);
  layout.setFocus(layout.overlay, false, " memvoy ");
  layout.setLines(layout.overlay, lines);
}

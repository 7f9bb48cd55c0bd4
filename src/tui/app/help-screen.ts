// The help overlay (?): every key, by screen; scrolls when the terminal is short.
import { wrappedHelpLines } from "../keymap.ts";
import { wrapLines } from "../text/wrap.ts";
import { applyMotion } from "../state/motions.ts";
import { TextPager } from "../state/text-pager.ts";
import { renderLine } from "../views/segments.ts";
import type { AppContext, Key } from "./app-context.ts";

export class HelpScreen {
  private lines = wrappedHelpLines(80, wrapLines);
  private readonly pager = new TextPager();

  constructor(private readonly app: AppContext) {}

  open(): void {
    this.pager.home();
  }

  /** Scroll by `lines` (the mouse wheel). */
  scroll(lines: number): void {
    this.pager.move(lines);
  }

  handleKey(ch: string | undefined, key: Key): boolean {
    if (applyMotion(this.pager, key.full, ["arrows", "edges", "vi", "viPages"])) return true;
    if (key.full === "escape" || ch === "?") {
      this.app.close();
      return true;
    }
    return false;
  }

  render(): void {
    const { layout, theme } = this.app;
    const inner = layout.inner(layout.overlay);
    this.lines = wrappedHelpLines(inner.width, wrapLines);
    const { shown, more } = this.pager.window(this.lines, inner.height - 1, inner.width, (l) =>
      l.startsWith("  ") ? renderLine(theme, inner.width, [[l]]) : renderLine(theme, inner.width, [[l, "title"]]),
    );
    shown.push(
      renderLine(theme, inner.width, [
        [more ? "↓ more: Down or PgDn · Esc closes" : "end of help · Esc or ? closes", "dim"],
      ]),
    );
    layout.setFocus(layout.overlay, true, " Help: every key ");
    layout.setLines(layout.overlay, shown);
  }
}

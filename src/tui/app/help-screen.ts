// The help overlay (?): every key, by screen; scrolls when the terminal is short.
import { wrappedHelpLines } from "../keymap.ts";
import { wrapLines } from "../text/wrap.ts";
import { ListCursor } from "../state/list-cursor.ts";
import { renderLine } from "../views/segments.ts";
import type { AppContext, Key } from "./app-context.ts";

export class HelpScreen {
  private lines = wrappedHelpLines(80, wrapLines);
  /** The cursor's offset is the first line shown. */
  private readonly scroll = new ListCursor(0, 1);

  constructor(private readonly app: AppContext) {}

  open(): void {
    this.scroll.home();
  }

  handleKey(ch: string | undefined, key: Key): boolean {
    const c = this.scroll;
    const maxOffset = Math.max(0, this.lines.length - c.height);
    const scrollTo = (offset: number) => {
      c.offset = Math.max(0, Math.min(maxOffset, offset));
    };
    switch (key.full) {
      case "escape":
        this.app.close();
        return true;
      case "up":
      case "k":
        scrollTo(c.offset - 1);
        return true;
      case "down":
      case "j":
        scrollTo(c.offset + 1);
        return true;
      case "pageup":
      case "b":
        scrollTo(c.offset - (c.height - 1));
        return true;
      case "pagedown":
      case "space":
        scrollTo(c.offset + (c.height - 1));
        return true;
      case "home":
      case "g":
        scrollTo(0);
        return true;
      case "end":
      case "S-g":
        scrollTo(maxOffset);
        return true;
    }
    if (ch === "?") {
      this.app.close();
      return true;
    }
    return false;
  }

  render(): void {
    const { layout, theme } = this.app;
    const inner = layout.inner(layout.overlay);
    this.lines = wrappedHelpLines(inner.width, wrapLines);
    const c = this.scroll;
    c.count = this.lines.length;
    c.height = Math.max(1, inner.height - 1);
    c.offset = Math.max(0, Math.min(c.offset, Math.max(0, this.lines.length - c.height)));
    const shown = this.lines
      .slice(c.offset, c.offset + c.height)
      .map((l) =>
        l.startsWith("  ") ? renderLine(theme, inner.width, [[l]]) : renderLine(theme, inner.width, [[l, "title"]]),
      );
    while (shown.length < c.height) shown.push(" ".repeat(inner.width));
    const more = c.offset + c.height < this.lines.length;
    shown.push(
      renderLine(theme, inner.width, [
        [more ? "↓ more: Down or PgDn · Esc closes" : "end of help · Esc or ? closes", "dim"],
      ]),
    );
    layout.setFocus(layout.overlay, true, " Help: every key ");
    layout.setLines(layout.overlay, shown);
  }
}

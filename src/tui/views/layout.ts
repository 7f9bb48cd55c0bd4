// The blessed boxes and their geometry: sessions | history above two status rows; one overlay box for
// search, summary, error memory and help; a centred confirmation box. Recomputed on every resize.
import type blessed from "blessed";
import { box } from "../terminal/blessed-widgets.ts";
import { drawnText, truncate } from "../text/char-width.ts";
import { escapeTags, type Theme } from "../theme.ts";

type Box = blessed.Widgets.BoxElement;

export interface Geometry {
  width: number;
  height: number;
  listWidth: number;
  mainHeight: number;
}

export class Layout {
  readonly list: Box;
  readonly history: Box;
  readonly overlay: Box;
  readonly status: Box;
  readonly message: Box;
  readonly confirm: Box;
  /** Rows of the message line (a long message or error wraps onto up to MAX_MESSAGE_ROWS). */
  messageRows = 1;
  private confirmRows = 6;

  constructor(
    readonly screen: blessed.Widgets.Screen,
    private readonly theme: Theme,
  ) {
    const framed = (): Box =>
      box({
        parent: screen,
        tags: true,
        wrap: false,
        border: { type: "line" },
        style: { border: theme.borderColor ? { fg: theme.borderColor } : {}, label: { bold: true } },
      });
    const row = (): Box => box({ parent: screen, tags: true, wrap: false, height: 1 });
    this.list = framed();
    this.history = framed();
    this.overlay = framed();
    this.status = row();
    this.message = row();
    this.confirm = framed();
    this.overlay.hide();
    this.confirm.hide();
    this.place();
  }

  geometry(): Geometry {
    const width = Math.max(20, Number(this.screen.width));
    const height = Math.max(6, Number(this.screen.height));
    const listWidth = Math.min(48, Math.max(26, Math.floor(width * 0.4)));
    const rows = Math.max(1, Math.min(this.messageRows, Math.floor(height / 4)));
    return { width, height, listWidth, mainHeight: height - 1 - rows };
  }

  /** Size and place every box for the current terminal size. */
  place(): Geometry {
    const g = this.geometry();
    Object.assign(this.list, { left: 0, top: 0, width: g.listWidth, height: g.mainHeight });
    Object.assign(this.history, { left: g.listWidth, top: 0, width: g.width - g.listWidth, height: g.mainHeight });
    Object.assign(this.overlay, { left: 0, top: 0, width: g.width, height: g.mainHeight });
    const messageRows = g.height - 1 - g.mainHeight;
    Object.assign(this.status, { left: 0, top: g.mainHeight, width: g.width });
    Object.assign(this.message, { left: 0, top: g.mainHeight + 1, width: g.width, height: messageRows });
    const cw = Math.min(72, g.width - 4);
    const ch = Math.min(this.confirmRows + 2, g.mainHeight);
    Object.assign(this.confirm, {
      left: Math.floor((g.width - cw) / 2),
      top: Math.max(0, Math.floor((g.mainHeight - ch) / 2)),
      width: cw,
      height: ch,
    });
    return g;
  }

  /** Make the confirmation box tall enough for `rows` lines of text. */
  sizeConfirm(rows: number): void {
    if (rows === this.confirmRows) return;
    this.confirmRows = rows;
    this.place();
  }

  /** Inner size (inside the border) of a framed box. */
  inner(box: Box): { width: number; height: number } {
    return { width: Math.max(1, Number(box.width) - 2), height: Math.max(1, Number(box.height) - 2) };
  }

  /** Frame the overlay as the focused box with this label; its inner size. */
  openOverlay(label: string): { width: number; height: number } {
    this.setFocus(this.overlay, true, label);
    return this.inner(this.overlay);
  }

  setFocus(box: Box, focused: boolean, label: string): void {
    const color = focused ? this.theme.focusColor : this.theme.borderColor;
    box.style.border = color ? { fg: color } : {};
    // A label longer than the border wraps onto the first content row: cut it to fit. Its braces are text (a
    // project folder named {bold} is no style).
    const fitted = truncate(focused && !color ? `▸${label}` : label, Math.max(1, Number(box.width) - 4));
    box.setLabel(drawnText(escapeTags(fitted)));
  }

  /** A box's content: every text of the TUI reaches the screen through here (or setFocus's label). */
  setLines(box: Box, lines: readonly string[]): void {
    box.setContent(drawnText(lines.join("\n")));
  }
}

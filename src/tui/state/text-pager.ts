// A read-only text in a window of rows (the help and summary overlays): its scroll position and the rows in view.
import type { Movable } from "./motions.ts";

export class TextPager implements Movable {
  /** The first row shown. */
  offset = 0;
  private count = 0;
  height = 1;

  move(delta: number): void {
    this.offset = Math.max(0, Math.min(this.offset + delta, Math.max(0, this.count - this.height)));
  }

  home(): void {
    this.offset = 0;
  }

  end(): void {
    this.move(this.count);
  }

  /** The rows of `lines` in a window of `height` rows, padded to it with blank rows of `width`; `more` when rows follow. */
  window<T>(
    lines: readonly T[],
    height: number,
    width: number,
    render: (line: T) => string,
  ): { shown: string[]; more: boolean } {
    this.count = lines.length;
    this.height = Math.max(1, height);
    this.move(0);
    const shown = lines.slice(this.offset, this.offset + this.height).map(render);
    while (shown.length < this.height) shown.push(" ".repeat(width));
    return { shown, more: this.offset + this.height < lines.length };
  }
}

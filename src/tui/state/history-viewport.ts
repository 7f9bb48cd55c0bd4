// Scrolling over history blocks by lines, wrapping only the blocks it walks through, so a long session
// opens, pages and centres on a message without wrapping every message.
import { blockLines, type HistoryBlock, type ViewLine } from "./history-blocks.ts";
import type { Movable } from "./motions.ts";

export interface Position {
  block: number;
  line: number;
}

const cmp = (a: Position, b: Position) => a.block - b.block || a.line - b.line;

const visibleChars = (l: ViewLine) => l.text.replace(/\s/g, "").length;

/** Characters (spaces not counted) on a block's lines above `line`. */
function textBefore(lines: readonly ViewLine[], line: number): number {
  let n = 0;
  for (let i = 0; i < line && i < lines.length; i++) n += visibleChars(lines[i]!);
  return n;
}

/** The line of a block on which its character number `at` (spaces not counted) is. */
function lineHolding(lines: readonly ViewLine[], at: number): number {
  let n = 0;
  for (let i = 0; i < lines.length; i++) {
    n += visibleChars(lines[i]!);
    if (n > at) return i;
  }
  return Math.max(0, lines.length - 1);
}

export class HistoryViewport implements Movable {
  private blocks: readonly HistoryBlock[] = [];
  private cache = new Map<number, ViewLine[]>();
  top: Position = { block: 0, line: 0 };
  hitId: string | undefined;
  /** The view was sent to the end and stays there when the pane changes size. */
  private pinnedToEnd = false;

  constructor(
    private width = 80,
    public height = 20,
  ) {}

  setBlocks(blocks: readonly HistoryBlock[], hitId?: string): void {
    this.blocks = blocks;
    this.hitId = hitId;
    this.cache.clear();
    this.top = { block: 0, line: 0 };
    this.pinnedToEnd = false;
  }

  /**
   * New content for the same session (live updates): the view stays on the block it showed at its top, or
   * stays at the end when it was there, so new messages appear without the scroll position jumping.
   */
  replaceBlocks(blocks: readonly HistoryBlock[], sameBlock: (a: HistoryBlock, b: HistoryBlock) => boolean): void {
    const anchor = this.blocks[this.top.block];
    const line = this.top.line;
    const follow = this.pinnedToEnd || this.blocks.length === 0;
    this.blocks = blocks;
    this.cache.clear();
    if (follow) return this.end();
    const at = anchor ? blocks.findIndex((b) => sameBlock(anchor, b)) : -1;
    this.top = this.clampTop(
      at >= 0
        ? { block: at, line: Math.min(line, this.lines(at).length - 1) }
        : this.top.block < blocks.length
          ? { block: this.top.block, line: 0 }
          : { block: 0, line: 0 },
    );
  }

  /** Blocks after the last one (new messages of the same session): the view holds, or follows the end when it was there. */
  appendBlocks(more: readonly HistoryBlock[]): void {
    if (more.length === 0) return;
    const follow = this.pinnedToEnd || this.blocks.length === 0;
    this.blocks = this.blocks.concat(more);
    if (follow) this.end();
  }

  /**
   * The block on the top row of the view (the last one when the view is at the end): a long message scrolled into
   * counts as long as its text is there; when only the blank line after a message is left at the top, the next.
   */
  currentBlock(): number | undefined {
    if (this.blocks.length === 0) return undefined;
    if (this.atBottom() && !this.atTop()) return this.blocks.length - 1;
    const { block, line } = this.top;
    const past = line > 0 && this.lines(block)[line]?.kind === "blank";
    return Math.min(past ? block + 1 : block, this.blocks.length - 1);
  }

  blockAt(index: number): HistoryBlock | undefined {
    return this.blocks[index];
  }

  /** The block shown on a row of the pane (0 = first row), if any. */
  blockOnRow(row: number): number | undefined {
    return this.visible()[row]?.block;
  }

  get blockCount(): number {
    return this.blocks.length;
  }

  setSize(width: number, height: number): void {
    if (width !== this.width) {
      // The same text of the top message stays at the top (a long one is not shown from its start again): the line
      // holding the character the top line began with, counted without the spaces that wrapping moves or drops.
      const { block, line } = this.top;
      const before = block < this.blocks.length && line > 0 ? textBefore(this.lines(block), line) : 0;
      this.width = width;
      this.cache.clear();
      this.top = { block, line: before > 0 ? lineHolding(this.lines(block), before) : 0 };
    }
    this.height = Math.max(1, height);
    this.top = this.pinnedToEnd ? this.maxTop() : this.clampTop(this.top);
  }

  lines(block: number): ViewLine[] {
    let l = this.cache.get(block);
    if (!l) {
      l = blockLines(this.blocks[block]!, block, this.width, this.hitId);
      this.cache.set(block, l);
    }
    return l;
  }

  /** The lines in view (at most `height`). */
  visible(): ViewLine[] {
    const out: ViewLine[] = [];
    let { block, line } = this.top;
    while (out.length < this.height && block < this.blocks.length) {
      const l = this.lines(block);
      while (line < l.length && out.length < this.height) out.push(l[line++]!);
      block++;
      line = 0;
    }
    return out;
  }

  move(n: number): void {
    this.top = this.clampTop(n >= 0 ? this.advance(this.top, n) : this.retreat(this.top, -n));
    this.pinnedToEnd = this.atBottom();
  }

  home(): void {
    this.top = { block: 0, line: 0 };
    this.pinnedToEnd = false;
  }

  end(): void {
    this.top = this.maxTop();
    this.pinnedToEnd = true;
  }

  /**
   * Put a block in the middle of the view (its start at the top when it is taller than the view). A block near
   * the end leaves the view at the end, and then it follows new messages like any view scrolled there.
   */
  centerOn(block: number): void {
    if (block < 0 || block >= this.blocks.length) return;
    const above = Math.max(0, Math.floor((this.height - this.lines(block).length) / 2));
    this.top = this.clampTop(this.retreat({ block, line: 0 }, above));
    this.pinnedToEnd = this.atBottom();
  }

  /**
   * How far the view is from the top (0) to the end (1), by lines within the blocks at its top and at the end: a
   * long last message is not "100%" from its first line on. Only those blocks are wrapped.
   */
  progress(): number {
    const at = (p: Position) =>
      p.block >= this.blocks.length ? this.blocks.length : p.block + p.line / Math.max(1, this.lines(p.block).length);
    const end = at(this.maxTop());
    return end <= 0 ? 1 : Math.min(1, at(this.top) / end);
  }

  atTop(): boolean {
    return this.top.block === 0 && this.top.line === 0;
  }

  atBottom(): boolean {
    return cmp(this.top, this.maxTop()) >= 0;
  }

  private advance(p: Position, n: number): Position {
    let { block, line } = p;
    let left = n;
    while (left > 0 && block < this.blocks.length) {
      const len = this.lines(block).length;
      const step = Math.min(left, len - line);
      line += step;
      left -= step;
      if (line >= len) {
        block++;
        line = 0;
      }
    }
    return { block, line };
  }

  private retreat(p: Position, n: number): Position {
    let { block, line } = p;
    let left = n;
    while (left > 0) {
      if (line === 0) {
        if (block === 0) break;
        block--;
        line = this.lines(block).length;
      }
      const step = Math.min(left, line);
      line -= step;
      left -= step;
    }
    return { block, line };
  }

  private maxTop(): Position {
    return this.retreat({ block: this.blocks.length, line: 0 }, this.height);
  }

  private clampTop(p: Position): Position {
    if (this.blocks.length === 0) return { block: 0, line: 0 };
    const max = this.maxTop();
    return cmp(p, max) > 0 ? max : p;
  }
}

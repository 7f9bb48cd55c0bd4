// Terminal cell widths as blessed (fullUnicode) lays them out, so our wrapping and its rendering agree:
// East Asian wide/fullwidth = 2, astral characters (surrogate pairs) = 2, combining marks and controls = 0.

const WIDE: readonly (readonly [number, number])[] = [
  [0x1100, 0x115f],
  [0x2329, 0x232a],
  [0x2e80, 0x303e],
  [0x3040, 0xa4cf],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe10, 0xfe19],
  [0xfe30, 0xfe6f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
];

// The common combining blocks (blessed drops or zero-widths these too).
const COMBINING: readonly (readonly [number, number])[] = [
  [0x0300, 0x036f],
  [0x0483, 0x0489],
  [0x0591, 0x05bd],
  [0x0610, 0x061a],
  [0x064b, 0x065f],
  [0x0e31, 0x0e31],
  [0x0e34, 0x0e3a],
  [0x0e47, 0x0e4e],
  [0x1ab0, 0x1aff],
  [0x1dc0, 0x1dff],
  [0x200b, 0x200f],
  [0x20d0, 0x20ff],
  [0xfe00, 0xfe0f],
  [0xfe20, 0xfe2f],
];

function inRanges(cp: number, ranges: readonly (readonly [number, number])[]): boolean {
  for (const [lo, hi] of ranges) {
    if (cp < lo) return false;
    if (cp <= hi) return true;
  }
  return false;
}

/** Width of one code point in terminal cells. */
export function codePointWidth(cp: number): number {
  if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return 0;
  if (cp < 0x300) return 1;
  if (cp > 0xffff) return 2;
  if (inRanges(cp, COMBINING)) return 0;
  return inRanges(cp, WIDE) ? 2 : 1;
}

/** Width of a string in terminal cells. */
export function stringWidth(text: string): number {
  let w = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x7f) {
      if (c >= 0x20) w++;
      continue;
    }
    const cp = text.codePointAt(i)!;
    if (cp > 0xffff) i++;
    w += codePointWidth(cp);
  }
  return w;
}

/** The longest prefix of `text` that fits in `width` cells, with an ellipsis when cut. */
export function truncate(text: string, width: number, ellipsis = "…"): string {
  if (width <= 0) return "";
  if (stringWidth(text) <= width) return text;
  const room = width - stringWidth(ellipsis);
  const out = cutToWidth(text, room);
  return room >= 0 ? out + ellipsis : out;
}

/** The longest prefix of `text` that fits in `room` cells, cut without a mark. */
export function cutToWidth(text: string, room: number): string {
  let w = 0;
  let out = "";
  for (const ch of text) {
    const cw = codePointWidth(ch.codePointAt(0)!);
    if (w + cw > room) break;
    out += ch;
    w += cw;
  }
  return out;
}

/** Pad (or cut) `text` to exactly `width` cells. */
export function fit(text: string, width: number): string {
  const t = truncate(text, width);
  return t + " ".repeat(Math.max(0, width - stringWidth(t)));
}

/** Right-align `text` in `width` cells. */
export function fitRight(text: string, width: number): string {
  const t = truncate(text, width);
  return " ".repeat(Math.max(0, width - stringWidth(t))) + t;
}

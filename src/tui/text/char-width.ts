// Widths as blessed (fullUnicode, its tables extended in terminal/wide-cells.ts) lays text out, so our wrapping
// and its rendering agree: East Asian wide/fullwidth and emoji = 2 (a filler cell follows each), controls and
// the emoji joiners drawnText removes = 0, the rest 1. blessed cuts a line by UTF-16 units, so a character beyond
// the BMP counts its two units, plus the filler when wide, and a combining mark (or a zero-width space) its one
// unit though it is drawn in the cell before: such a line may end in blank cells, never overflow (text past a
// line's units is cut away).

type Ranges = readonly (readonly [number, number])[];

const CJK: Ranges = [
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

// Emoji that terminals draw two cells wide (East Asian Width W, Unicode 14), missing from blessed's tables;
// hexadecimal code points and ranges.
const EMOJI = parseRanges(
  "231a-231b 23e9-23ec 23f0 23f3 25fd-25fe 2614-2615 2648-2653 267f 2693 26a1 26aa-26ab 26bd-26be " +
    "26c4-26c5 26ce 26d4 26ea 26f2-26f3 26f5 26fa 26fd 2705 270a-270b 2728 274c 274e 2753-2755 2757 " +
    "2795-2797 27b0 27bf 2b1b-2b1c 2b50 2b55 1f004 1f0cf 1f18e 1f191-1f19a 1f200-1f320 1f32d-1f335 " +
    "1f337-1f37c 1f37e-1f393 1f3a0-1f3ca 1f3cf-1f3d3 1f3e0-1f3f0 1f3f4 1f3f8-1f43e 1f440 1f442-1f4fc " +
    "1f4ff-1f53d 1f54b-1f54e 1f550-1f567 1f57a 1f595-1f596 1f5a4 1f5fb-1f64f 1f680-1f6c5 1f6cc " +
    "1f6d0-1f6d2 1f6d5-1f6df 1f6eb-1f6ec 1f6f4-1f6fc 1f7e0-1f7f0 1f90c-1f93a 1f93c-1f945 1f947-1f9ff " +
    "1fa70-1faf6",
);

/** Every range drawn two cells wide, in order: CJK, emoji, and the ideographs beyond the BMP. */
export const WIDE_RANGES: Ranges = [...CJK, ...EMOJI, [0x20000, 0x2fffd] as const, [0x30000, 0x3fffd] as const].sort(
  (a, b) => a[0] - b[0],
);

function parseRanges(spec: string): Ranges {
  return spec.split(" ").map((r) => {
    const [lo, hi = lo] = r.split("-").map((h) => Number.parseInt(h, 16));
    return [lo!, hi!] as const;
  });
}

function inRanges(cp: number, ranges: Ranges): boolean {
  for (const [lo, hi] of ranges) {
    if (cp < lo) return false;
    if (cp <= hi) return true;
  }
  return false;
}

/**
 * Emoji joiners (ZWJ), variation selectors, skin-tone modifiers and tag characters. Terminals disagree on how
 * wide a sequence they join is (tmux draws a ZWJ sequence in one cell, others in two or as its parts), while
 * its parts' widths are the same everywhere: the TUI draws the parts (drawnText) and counts these as nothing.
 */
const JOINERS = /[\u200d\ufe0e\ufe0f]|\ud83c[\udffb-\udfff]|\udb40[\udc00-\udfff]/g;

/** Text as the TUI hands it to blessed: emoji sequences as their parts (see JOINERS). */
export function drawnText(text: string): string {
  return text.replace(JOINERS, "");
}

/** Drawn two cells wide (blessed puts a filler cell after it). */
export function isWide(cp: number): boolean {
  return inRanges(cp, WIDE_RANGES);
}

/** Width of one code point as blessed lays it out (see the top of this file). */
export function codePointWidth(cp: number): number {
  if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return 0;
  if (cp < 0x300) return 1;
  if (cp > 0xffff) {
    if ((cp >= 0x1f3fb && cp <= 0x1f3ff) || (cp >= 0xe0000 && cp <= 0xe03ff)) return 0; // JOINERS
    return isWide(cp) ? 3 : 2;
  }
  if (cp === 0x200d || cp === 0xfe0e || cp === 0xfe0f) return 0; // JOINERS
  return isWide(cp) ? 2 : 1;
}

/** Width of a string as blessed lays it out (terminal cells, but two per character beyond the BMP). */
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

/**
 * What a text field shows of its text in `room` cells: all of it when it fits, else its end after an ellipsis (the
 * end is where typing goes).
 */
export function fieldTail(text: string, room: number): string {
  if (stringWidth(text) <= room) return text;
  if (room <= 1) return room === 1 ? "…" : "";
  const chars = Array.from(text);
  let w = 0;
  let from = chars.length;
  while (from > 0) {
    const cw = stringWidth(chars[from - 1]!);
    if (w + cw > room - 1) break;
    w += cw;
    from--;
  }
  return `…${chars.slice(from).join("")}`;
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

// blessed's width tables predate emoji: it gives an emoji one cell though terminals draw it in two, so the rest
// of the row lands a cell off (a border pushed, stale characters left behind as the pane scrolls). Every
// character the TUI counts two cells wide gets blessed's treatment of CJK instead: a filler cell after it,
// which drawing skips.
import Unicode from "blessed/lib/unicode";
import { isWide, WIDE_RANGES } from "../text/char-width.ts";

interface UnicodeTables {
  charWidth(str: string | number, i?: number): number;
  chars: { all: RegExp };
}

const unicode = Unicode as unknown as UnicodeTables;
const hex = (cp: number) => `\\u{${cp.toString(16)}}`;
// Where blessed inserts the filler (its parseContent replaces this with "$1\x03").
unicode.chars.all = new RegExp(`([${WIDE_RANGES.map(([lo, hi]) => `${hex(lo)}-${hex(hi)}`).join("")}])`, "gu");
const blessedWidth = unicode.charWidth;
// Where drawing skips the cell after a character: exactly where a filler was inserted.
unicode.charWidth = (str, i) => {
  const cp = typeof str === "number" ? str : (str.codePointAt(i ?? 0) ?? 0);
  if (isWide(cp)) return 2;
  const w = blessedWidth(str, i);
  return w === 2 ? 1 : w;
};

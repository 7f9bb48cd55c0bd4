// Word wrapping by terminal cells: breaks at spaces, before and after wide (CJK) characters, and hard-breaks
// words longer than the line. Lines are returned as [start, end) offsets into the text.
import { codePointWidth, isWide, stringWidth } from "./char-width.ts";

// Closing CJK punctuation never starts a line (kinsoku): the break moves before the previous character.
const NO_LINE_START = new Set(
  Array.from("、。，．：；？！）」』】〕〉》〗〙〛｝］ー…・ゝゞヽヾ々ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ").map(
    (c) => c.codePointAt(0)!,
  ),
);

/**
 * Drawn on the character before it, so never the first of a line: a combining mark (Thai tone marks and vowels,
 * an accent typed apart), a Hangul vowel or final consonant of a decomposed syllable.
 */
function attaches(cp: number): boolean {
  if (cp < 0x300) return false;
  if ((cp >= 0x1160 && cp <= 0x11ff) || (cp >= 0xd7b0 && cp <= 0xd7ff)) return true;
  return /\p{M}/u.test(String.fromCodePoint(cp));
}

export interface LineSpan {
  start: number;
  end: number;
}

/** `firstWidth`: the first line's width when it differs (it follows a label, the others an indent). */
export function wrapText(text: string, width: number, firstWidth = width): LineSpan[] {
  const w = Math.max(1, Math.floor(width));
  const first = Math.max(1, Math.floor(firstWidth));
  const out: LineSpan[] = [];
  let from = 0;
  for (;;) {
    const nl = text.indexOf("\n", from);
    const to = nl < 0 ? text.length : nl;
    wrapParagraph(text, from, to, w, first, out);
    if (nl < 0) break;
    from = nl + 1;
  }
  return out;
}

/** Wrap and return the line strings. */
export function wrapLines(text: string, width: number, firstWidth = width): string[] {
  return wrapText(text, width, firstWidth).map((s) => text.slice(s.start, s.end));
}

/** Parts joined by " · " on lines of `width` cells, broken between parts (a part wider than a line wraps). */
export function packParts(parts: readonly string[], width: number): string[] {
  const rows: string[] = [];
  for (const part of parts) {
    const row = rows.length ? `${rows[rows.length - 1]} · ${part}` : part;
    if (rows.length && stringWidth(row) <= width) rows[rows.length - 1] = row;
    else rows.push(...wrapLines(part, width));
  }
  return rows;
}

function wrapParagraph(
  text: string,
  from: number,
  to: number,
  lineWidth: number,
  firstWidth: number,
  out: LineSpan[],
): void {
  const before = out.length;
  let width = out.length === 0 ? firstWidth : lineWidth;
  let lineStart = from;
  let used = 0;
  let breakAt = -1;
  let resumeAt = -1;
  let i = from;
  const skipSpaces = (k: number) => {
    while (k < to && text.charCodeAt(k) === 0x20) k++;
    return k;
  };
  const push = (end: number) => {
    let e = end;
    while (e > lineStart && text.charCodeAt(e - 1) === 0x20) e--;
    out.push({ start: lineStart, end: e });
    width = lineWidth;
  };
  while (i < to) {
    const cp = text.codePointAt(i)!;
    const len = cp > 0xffff ? 2 : 1;
    if (cp === 0x20) {
      if (used + 1 > width) {
        push(i);
        i = lineStart = skipSpaces(i);
        used = 0;
        breakAt = -1;
        continue;
      }
      breakAt = i;
      resumeAt = i + 1;
      used++;
      i++;
      continue;
    }
    const cw = codePointWidth(cp);
    const wide = isWide(cp);
    if (wide && i > lineStart && !NO_LINE_START.has(cp)) {
      breakAt = i;
      resumeAt = i;
    }
    if (used + cw > width && i > lineStart) {
      if (breakAt > lineStart) {
        push(breakAt);
        i = lineStart = skipSpaces(resumeAt);
      } else {
        // A cut inside a character's marks moves to before the character they belong to.
        let at = i;
        while (at > lineStart && attaches(text.codePointAt(at)!))
          at = text.charCodeAt(at - 1) >= 0xdc00 && text.charCodeAt(at - 1) <= 0xdfff ? at - 2 : at - 1;
        if (at === lineStart) at = i;
        push(at);
        i = lineStart = at;
      }
      used = 0;
      breakAt = -1;
      continue;
    }
    used += cw;
    i += len;
    if (wide && i < to && !NO_LINE_START.has(text.codePointAt(i)!) && !attaches(text.codePointAt(i)!)) {
      breakAt = i;
      resumeAt = i;
    }
  }
  if (lineStart < to || out.length === before) push(to);
}

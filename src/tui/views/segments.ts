// Build one screen line from styled segments, cut and padded to an exact width, as blessed-tagged text.
import { cutToWidth as cut, stringWidth } from "../text/char-width.ts";
import { escapeTags, type StyleName, type Theme } from "../theme.ts";
import { wrapText } from "../text/wrap.ts";

export type Ranges = readonly (readonly [number, number])[];
export type Segment = readonly [text: string, style?: StyleName, ranges?: Ranges];

/**
 * Segments laid out left to right, cut at `width` cells (with … when cut) and padded to it. With `fill`
 * the whole line takes that style and segment styles are dropped (blessed's {/} would end the fill).
 */
export function renderLine(theme: Theme, width: number, segments: readonly Segment[], fill?: StyleName): string {
  let out = "";
  let used = 0;
  for (const [text, style, ranges] of segments) {
    const w = stringWidth(text);
    const fits = used + w <= width;
    const shown = fits ? text : cut(text, Math.max(0, width - used - 1)) + (width - used >= 1 ? "…" : "");
    if (fill) out += escapeTags(shown);
    else if (ranges && ranges.length)
      out += theme.marked(
        shown,
        ranges.filter(([, e]) => e <= shown.length),
        style,
      );
    else out += style ? theme.paint(style, shown) : escapeTags(shown);
    used += stringWidth(shown);
    if (!fits) break;
  }
  const pad = " ".repeat(Math.max(0, width - used));
  return fill ? theme.wrap(fill, out + pad) : out + pad;
}

/** Exactly `height` lines: blank lines of `width` added below, extra lines cut. */
export function fitHeight(lines: string[], width: number, height: number): string[] {
  while (lines.length < height) lines.push(" ".repeat(width));
  return lines.slice(0, height);
}

/** Segments wrapped onto lines of `width` cells (at spaces, as wrapText does), each part keeping its style. */
export function wrapSegments(segments: readonly Segment[], width: number): Segment[][] {
  const text = segments.map(([t]) => t).join("");
  return wrapText(text, width).map(({ start, end }) => {
    const line: Segment[] = [];
    let at = 0;
    for (const [t, style] of segments) {
      const from = Math.max(start, at);
      const to = Math.min(end, at + t.length);
      if (from < to) line.push([text.slice(from, to), style]);
      at += t.length;
    }
    return line;
  });
}

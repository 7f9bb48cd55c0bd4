// Colours by terminal depth: none with NO_COLOR or a monochrome/dumb terminal (bold, underline and
// reverse carry the meaning), basic colours on 8/16-colour terminals, a softer palette on 256 colours.
export type ColorDepth = "mono" | "basic" | "256";

export type StyleName =
  | "title"
  | "dim"
  | "user"
  | "assistant"
  | "marker"
  | "hit"
  | "match"
  | "selected"
  | "error"
  | "ok"
  | "key"
  | "busy";

export function colorDepth(env: Record<string, string | undefined>, terminalColors: number): ColorDepth {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return "mono";
  if (env.TERM === "dumb" || terminalColors < 8) return "mono";
  return terminalColors >= 256 ? "256" : "basic";
}

const STYLES: Record<ColorDepth, Record<StyleName, string>> = {
  mono: {
    title: "bold",
    dim: "",
    user: "bold",
    assistant: "",
    marker: "bold",
    hit: "bold",
    match: "underline",
    selected: "inverse",
    error: "bold",
    ok: "",
    key: "bold",
    busy: "bold",
  },
  basic: {
    title: "bold",
    dim: "",
    user: "cyan-fg",
    assistant: "green-fg",
    marker: "yellow-fg",
    hit: "yellow-fg",
    match: "black-fg}{yellow-bg",
    selected: "inverse",
    error: "red-fg",
    ok: "green-fg",
    key: "cyan-fg",
    busy: "yellow-fg",
  },
  // xterm-256 palette indices: blessed's own hex-to-palette matching picks wrong colours.
  "256": {
    title: "bold",
    dim: "245-fg",
    user: "74-fg",
    assistant: "114-fg",
    marker: "179-fg",
    hit: "221-fg",
    match: "16-fg}{221-bg",
    selected: "inverse",
    error: "203-fg",
    ok: "114-fg",
    key: "74-fg",
    busy: "179-fg",
  },
};

/** Escape blessed tag braces in user text. */
export function escapeTags(text: string): string {
  return text.replace(/[{}]/g, (c) => (c === "{" ? "{open}" : "{close}"));
}

export class Theme {
  constructor(readonly depth: ColorDepth) {}

  /** `text` (escaped) in a style, as blessed tags. */
  paint(style: StyleName, text: string): string {
    return this.wrap(style, escapeTags(text));
  }

  /** Already-tagged content in a style. */
  wrap(style: StyleName, tagged: string): string {
    const open = STYLES[this.depth][style];
    if (!open || tagged === "") return tagged;
    return `{${open}}${tagged}{/}`;
  }

  /** Text with [start, end) ranges painted as matches. */
  marked(text: string, ranges: readonly (readonly [number, number])[], base?: StyleName): string {
    let out = "";
    let at = 0;
    for (const [s, e] of ranges) {
      if (s < at || e > text.length || s >= e) continue;
      out += this.plain(text.slice(at, s), base) + this.paint("match", text.slice(s, e));
      at = e;
    }
    return out + this.plain(text.slice(at), base);
  }

  private plain(text: string, base?: StyleName): string {
    return base ? this.paint(base, text) : escapeTags(text);
  }

  get borderColor(): string | number | undefined {
    return this.depth === "mono" ? undefined : this.depth === "256" ? 240 : "white";
  }

  get focusColor(): string | number | undefined {
    return this.depth === "mono" ? undefined : this.depth === "256" ? 74 : "cyan";
  }
}

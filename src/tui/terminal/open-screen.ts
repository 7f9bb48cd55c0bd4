// The blessed screen: alternate buffer, full Unicode (CJK takes two cells), colour depth from TERM/NO_COLOR.
import type blessed from "blessed";
import { screen as blessedScreen } from "./blessed-widgets.ts";
import { colorDepth, Theme } from "../theme.ts";
import { separateEscapeChords } from "./escape-chords.ts";
import { bracketPastes } from "./bracketed-paste.ts";

export interface OpenedScreen {
  screen: blessed.Widgets.Screen;
  theme: Theme;
}

export function openScreen(env: Record<string, string | undefined> = process.env): OpenedScreen {
  separateEscapeChords(process.stdin);
  const screen = blessedScreen({
    smartCSR: true,
    fullUnicode: true,
    // Message text is Unicode whatever LANG says; every terminal we target speaks UTF-8.
    forceUnicode: true,
    autoPadding: true,
    title: "memvoy",
    warnings: false,
    ...(env.TERM ? { terminal: env.TERM } : {}),
  });
  // Draw box and symbol characters as UTF-8, never through the terminal's alternate charset (ACS):
  // what ncurses does with NCURSES_NO_UTF8_ACS=1 on a UTF-8 terminal.
  (screen as unknown as { tput: { brokenACS: boolean } }).tput.brokenACS = true;
  bracketPastes(screen, process.stdin);
  const colors = Number((screen as unknown as { tput: { colors?: number } }).tput.colors ?? 8);
  return { screen, theme: new Theme(colorDepth(env, colors)) };
}

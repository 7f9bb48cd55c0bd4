// Every key of the TUI, by screen: the help screen (?) lists exactly this table.
export interface KeyGroup {
  title: string;
  keys: readonly (readonly [key: string, action: string])[];
}

export const KEY_GROUPS: readonly KeyGroup[] = [
  {
    title: "Everywhere",
    keys: [
      ["?", "this help (Esc or ? closes it)"],
      ["q", "quit; in a text field q types: Esc leaves the field first (Ctrl-C always quits)"],
      ["/", "search messages"],
      ["Ctrl-S", "summary of the selected session"],
      ["Ctrl-E", "error memory"],
      ["Ctrl-L", "reload from disk and redraw"],
      ["Ctrl-Z", "suspend to the shell (fg resumes); without job control memvoy goes on and says so"],
      ["paste", "goes into the filter or the query; ignored elsewhere (never read as keys)"],
    ],
  },
  {
    title: "Session list",
    keys: [
      ["type", "filter sessions by id, title, source or project (the filter field takes q too)"],
      ["Backspace / Esc", "delete a filter character / clear the filter and leave the field"],
      ["Up Down PgUp PgDn Home End", "select a session (its history shows on the right)"],
      ["Enter / Right / Tab", "move into the history pane"],
      ["Ctrl-O", "sort by recent activity, name or size (messages)"],
      ["Ctrl-R", "reset the session (asks first; the summary is kept)"],
      ["Ctrl-X / Delete", "remove the session entirely (asks first)"],
    ],
  },
  {
    title: "History pane",
    keys: [
      ["Up Down / k j", "scroll one line"],
      ["PgUp PgDn / b Space", "scroll one page"],
      ["Home End / g G", "jump to the first or last message"],
      ["Left / Tab / Esc", "back to the session list"],
      [
        "o / y",
        "open the message at the top (the last one at the end, or the one clicked) in $PAGER / copy it (OSC 52)",
      ],
      ["s / e / Ctrl-O", "summary / error memory / sort the session list"],
      ["r / x", "reset / remove the session (asks first)"],
    ],
  },
  {
    title: "Search (/)",
    keys: [
      ["type", "the query; results appear as you type"],
      ["Tab", "match mode: hybrid, keyword, semantic"],
      ["Ctrl-S", "scope: all sessions or this session"],
      ["Ctrl-T", "time range: all, 1d, 7d, 30d, 1y"],
      ["Up Down PgUp PgDn", "select a hit"],
      ["Enter", "open the hit in its session, centred among its neighbours"],
      ["Ctrl-O / Ctrl-Y", "open the hit in $PAGER / copy it (OSC 52)"],
      ["Backspace / Ctrl-U", "delete a character / clear the query"],
      ["Esc", "close the search"],
    ],
  },
  {
    title: "Summary viewer",
    keys: [
      ["Up Down PgUp PgDn g G", "scroll"],
      ["S", "summarize this session now"],
      ["Esc", "back"],
    ],
  },
  {
    title: "Error memory",
    keys: [
      ["Up Down PgUp PgDn Home End", "select a record"],
      ["Enter", "show or hide the record's detail"],
      ["/", "search the records (Enter or Esc ends typing)"],
      ["o / y", "open the record in $PAGER / copy it (OSC 52)"],
      ["d / Delete", "delete the record (asks first)"],
      ["Esc", "back"],
    ],
  },
  {
    title: "Confirmation",
    keys: [
      ["y", "yes, do it"],
      ["n / Esc", "no, keep everything"],
    ],
  },
];

/** Help as plain lines (key column padded). */
export function helpLines(): string[] {
  const width = Math.max(...KEY_GROUPS.flatMap((g) => g.keys.map(([k]) => k.length)));
  const out: string[] = [];
  for (const g of KEY_GROUPS) {
    if (out.length) out.push("");
    out.push(g.title);
    for (const [k, a] of g.keys) out.push(`  ${k.padEnd(width)}  ${a}`);
  }
  return out;
}

/**
 * Help lines wrapped to a width: a long action continues under its own column (a hanging indent), so
 * nothing is cut at 80 columns.
 */
export function wrappedHelpLines(width: number, wrap: (text: string, width: number) => string[]): string[] {
  const keyWidth = Math.max(...KEY_GROUPS.flatMap((g) => g.keys.map(([k]) => k.length)));
  const indent = 2 + keyWidth + 2;
  const out: string[] = [];
  for (const line of helpLines()) {
    if (line.length <= width || !line.startsWith("  ")) {
      out.push(line);
      continue;
    }
    const head = line.slice(0, indent);
    const parts = wrap(line.slice(indent), Math.max(8, width - indent));
    out.push(head + parts[0]!, ...parts.slice(1).map((p) => " ".repeat(indent) + p));
  }
  return out;
}

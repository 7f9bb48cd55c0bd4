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
    ],
  },
  {
    title: "Session list",
    keys: [
      ["a-z 0-9 . _ -", "type to filter sessions by id (the filter field takes q too)"],
      ["Backspace / Esc", "delete a filter character / clear the filter and leave the field"],
      ["Up Down PgUp PgDn Home End", "select a session (its history shows on the right)"],
      ["Enter / Right / Tab", "move into the history pane"],
      ["Ctrl-O", "sort by recent activity or by name"],
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
      ["s / e / o", "summary / error memory / sort"],
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

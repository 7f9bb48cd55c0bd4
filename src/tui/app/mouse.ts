// The mouse: a click selects (a session, a search hit, an error record) and moves the focus; the wheel
// scrolls the pane under the pointer. Coordinates are 0-based screen cells, as blessed reports them.
import { nsToLocalSeconds } from "../../shared/time.ts";
import type { StatusState } from "../state/status-state.ts";
import { LIST_CHROME_ROWS } from "../views/session-list-view.ts";
import { HIT_ROWS, searchChromeRows } from "../views/search-view.ts";
import { errorsChromeRows } from "../views/error-memory-view.ts";
import type { ErrorMemoryScreen } from "./error-memory-screen.ts";
import type { HelpScreen } from "./help-screen.ts";
import type { SummaryScreen } from "./summary-screen.ts";
import type { MainScreen } from "./main-screen.ts";
import type { SearchScreen } from "./search-screen.ts";
import type { Layout } from "../views/layout.ts";

export interface MouseEvent {
  x: number;
  y: number;
  action: string;
}

/** Lines or rows one wheel notch moves. */
export const WHEEL_STEP = 3;

export interface MouseTargets {
  layout: Layout;
  main: MainScreen;
  search: SearchScreen;
  errorMemory: ErrorMemoryScreen;
  help: HelpScreen;
  summary: SummaryScreen;
  /** The open overlay, if any. */
  top: string | undefined;
  status: StatusState;
}

const wheel = (action: string) => (action === "wheelup" ? -1 : action === "wheeldown" ? 1 : 0);

/** Handle one mouse event; true when something changed. */
export function handleMouse(t: MouseTargets, e: MouseEvent): boolean {
  const dir = wheel(e.action);
  if (dir === 0 && e.action !== "mousedown") return false;
  const g = t.layout.geometry();
  if (e.y >= g.mainHeight) return false;
  // Inside the frame: 1 cell of border on each side.
  const row = e.y - 1;
  if (t.top === "search") {
    const c = t.search.state.cursor;
    // A hit picked with the mouse is kept by the next answer, as one picked with the keys is.
    if (dir) {
      c.move(dir);
      t.search.state.userMoved();
      return true;
    }
    const at = row - searchChromeRows(t.search.state, t.layout.inner(t.layout.overlay).width);
    if (at < 0) return false;
    const index = c.offset + Math.floor(at / HIT_ROWS);
    if (index >= c.count) return false;
    c.select(index);
    t.search.state.userMoved();
    return true;
  }
  // The help and the summary viewer are texts: the wheel scrolls them (mouse reporting keeps it from the terminal).
  if (t.top === "help" || t.top === "summary") {
    if (!dir) return false;
    (t.top === "help" ? t.help : t.summary).scroll(dir * WHEEL_STEP);
    return true;
  }
  if (t.top === "error-memory") {
    const s = t.errorMemory.state;
    if (dir) {
      s.cursor.move(dir);
      return true;
    }
    const at = row - errorsChromeRows(s, t.layout.inner(t.layout.overlay).width);
    if (s.detail || at < 0 || at >= s.cursor.height) return false;
    const index = s.cursor.offset + at;
    if (index >= s.cursor.count) return false;
    s.cursor.select(index);
    return true;
  }
  if (t.top !== undefined) return false;
  const m = t.main;
  if (e.x < g.listWidth) {
    const c = m.sessions.cursor;
    if (dir) c.move(dir);
    else {
      const at = row - LIST_CHROME_ROWS;
      if (at < 0 || at >= c.height || c.offset + at >= c.count) return false;
      c.select(c.offset + at);
      m.focus = "list";
    }
    m.syncHistory();
    return true;
  }
  if (dir) m.view.move(dir * WHEEL_STEP);
  else {
    m.focus = "history";
    const picked = m.pickRow(row);
    if (picked)
      t.status.show(`picked the ${picked.role} message of ${nsToLocalSeconds(picked.sendAt)}: o opens it, y copies it`);
  }
  return true;
}

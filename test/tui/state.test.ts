// View state without a terminal: list selection, session filter and sort, history scrolling and centring,
// search inputs, stale answers and mode fallback, debouncing.
import { describe, expect, test } from "bun:test";
import type { StoredMessage } from "../../src/shared/message.ts";
import { Debouncer, type Timers } from "../../src/tui/state/debouncer.ts";
import {
  ARCHIVE_MARKER,
  PRUNED_MARKER,
  blockOfMessage,
  buildBlocks,
  type HistoryBlock,
} from "../../src/tui/state/history-blocks.ts";
import { HistoryViewport } from "../../src/tui/state/history-viewport.ts";
import { ListCursor } from "../../src/tui/state/list-cursor.ts";
import { applyMotion, page } from "../../src/tui/state/motions.ts";
import { TextPager } from "../../src/tui/state/text-pager.ts";
import { cannotAnswer, SearchState } from "../../src/tui/state/search-state.ts";
import { Theme } from "../../src/tui/theme.ts";
import { renderSearch, snippetForRow } from "../../src/tui/views/search-view.ts";
import { scrollLabel } from "../../src/tui/views/history-view.ts";
import { stringWidth } from "../../src/tui/text/char-width.ts";
import { SessionListState } from "../../src/tui/state/session-list-state.ts";

const session = (id: string, lastActivity: bigint, messages = 1, hasSummary = false) => ({
  id,
  lastActivity,
  messages,
  hasSummary,
});

function messages(n: number, archived = 0, words = 3): StoredMessage[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `m${i}`,
    seq: BigInt(i + 1),
    session: "s",
    role: i % 2 ? "assistant" : "user",
    content: Array.from({ length: words }, (_, k) => `word${i}-${k}`).join(" "),
    sendAt: BigInt(i + 1) * 1_000_000_000n,
    recent: i >= archived,
  }));
}

describe("ListCursor", () => {
  test("moves, pages and keeps the selection in view", () => {
    const c = new ListCursor(100, 10);
    c.move(5);
    expect(c.selected).toBe(5);
    expect(c.offset).toBe(0);
    page(c, 1);
    expect(c.selected).toBe(14);
    expect(c.visible()).toEqual({ first: 5, last: 14 });
    c.end();
    expect(c.selected).toBe(99);
    expect(c.offset).toBe(90);
    c.move(10);
    expect(c.selected).toBe(99);
    c.home();
    expect([c.selected, c.offset]).toEqual([0, 0]);
  });

  test("shrinking the list or the window clamps both", () => {
    const c = new ListCursor(50, 10);
    c.select(45);
    c.setCount(20);
    expect(c.selected).toBe(19);
    c.setHeight(3);
    expect(c.visible()).toEqual({ first: 17, last: 19 });
    c.setCount(0);
    expect([c.selected, c.offset]).toEqual([0, 0]);
  });
});

describe("SessionListState", () => {
  const list = [session("alpha", 300n), session("beta", 100n), session("gamma-alpha", 200n), session("Delta", 50n)];

  test("sorts by recent activity, by name, or by size", () => {
    const s = new SessionListState();
    s.setSessions(list.map((x, i) => ({ ...x, messages: [5, 9, 1, 9][i]! })));
    expect(s.visible.map((x) => x.id)).toEqual(["alpha", "gamma-alpha", "beta", "Delta"]);
    s.toggleSort();
    expect(s.sort).toBe("name");
    expect(s.visible.map((x) => x.id)).toEqual(["alpha", "beta", "Delta", "gamma-alpha"]);
    s.toggleSort();
    expect(s.sort).toBe("size");
    expect(s.visible.map((x) => x.id)).toEqual(["beta", "Delta", "alpha", "gamma-alpha"]);
    s.toggleSort();
    expect(s.sort).toBe("recent");
  });

  test("the filter also matches title, source and project when a session has them", () => {
    const s = new SessionListState();
    s.setSessions([
      { ...session("imp-1", 3n), title: "Fix the Login Bug", source: "claude-code", project: "webshop" } as never,
      ...list,
    ]);
    for (const ch of "login bug") s.typeChar(ch);
    expect(s.visible.map((x) => x.id)).toEqual(["imp-1"]);
    s.clearFilter();
    for (const ch of "webshop") s.typeChar(ch);
    expect(s.visible.map((x) => x.id)).toEqual(["imp-1"]);
    s.clearFilter();
    for (const ch of "claude") s.typeChar(ch);
    expect(s.visible.map((x) => x.id)).toEqual(["imp-1"]);
    s.clearFilter();
    expect(s.typeChar(" ")).toBe(false); // a lone space is not a filter
  });

  test("typing filters case-insensitively, prefix matches first; Backspace and Esc undo it", () => {
    const s = new SessionListState();
    s.setSessions(list);
    expect(s.typeChar("A")).toBe(true);
    expect(s.typeChar("l")).toBe(true);
    expect(s.visible.map((x) => x.id)).toEqual(["alpha", "gamma-alpha"]);
    expect(s.typeChar("/")).toBe(false); // not a session id character
    s.typeChar("p");
    s.typeChar("h");
    s.typeChar("a");
    s.typeChar("-");
    expect(s.visible).toEqual([]);
    expect(s.selected()).toBeUndefined();
    s.backspace();
    expect(s.visible.map((x) => x.id)).toEqual(["alpha", "gamma-alpha"]);
    expect(s.clearFilter()).toBe(true);
    expect(s.visible).toHaveLength(4);
    expect(s.clearFilter()).toBe(false);
  });

  test("Backspace deletes a whole character of the filter: an emoji typed (two UTF-16 units) goes at once", () => {
    const s = new SessionListState();
    s.setSessions([{ ...session("party", 1n), title: "🎉 launch party" }, session("alpha", 2n)]);
    for (const ch of "🎉x") s.typeChar(ch); // blessed gives an emoji's two halves as two keys
    expect(s.visible).toEqual([]);
    s.backspace();
    expect(s.filter).toBe("🎉");
    expect(s.visible.map((x) => x.id)).toEqual(["party"]);
    s.backspace();
    expect(s.filter).toBe("");
  });

  test("the selection follows its session across filtering, sorting and reloads", () => {
    const s = new SessionListState();
    s.setSessions(list);
    s.cursor.select(2); // beta
    expect(s.selectedId()).toBe("beta");
    s.toggleSort();
    expect(s.selectedId()).toBe("beta");
    s.setSessions([session("beta", 999n), ...list.filter((x) => x.id !== "beta")]);
    expect(s.selectedId()).toBe("beta");
    s.typeChar("g"); // beta hidden: the first match is selected
    expect(s.selectedId()).toBe("gamma-alpha");
    expect(s.selectId("beta")).toBe(true); // opening a hidden session clears the filter
    expect(s.filter).toBe("");
    expect(s.selectedId()).toBe("beta");
    expect(s.selectId("nope")).toBe(false);
  });

  test("a selected session removed elsewhere gives its row to its neighbour while a filter is on, as without one", () => {
    const s = new SessionListState();
    const many = ["s-1", "s-2", "s-3", "s-4", "other"].map((id, i) => session(id, BigInt(100 - i)));
    s.setSessions(many);
    for (const ch of "s-") s.typeChar(ch);
    s.cursor.select(2);
    expect(s.selectedId()).toBe("s-3");
    s.setSessions(many.filter((x) => x.id !== "s-3"));
    expect(s.selectedId()).toBe("s-4");
    s.clearFilter();
    s.cursor.select(1);
    s.setSessions(many.filter((x) => x.id !== "s-3" && x.id !== "s-2"));
    expect(s.selectedId()).toBe("s-4");
  });

  test("counts", () => {
    const s = new SessionListState();
    s.setSessions([session("a", 1n, 5), session("b", 2n, 7)]);
    expect([s.total, s.totalMessages]).toEqual([2, 12]);
  });
});

describe("history blocks", () => {
  test("a marker sits where the archive ends and history.json begins", () => {
    const blocks = buildBlocks(messages(6, 4));
    expect(blocks.map((b) => (b.type === "marker" ? "|" : b.message.id))).toEqual([
      "m0",
      "m1",
      "m2",
      "m3",
      "|",
      "m4",
      "m5",
    ]);
    expect(blocks[4]).toEqual({ type: "marker", text: ARCHIVE_MARKER });
    expect(buildBlocks(messages(3, 0)).some((b) => b.type === "marker")).toBe(false);
    expect(buildBlocks(messages(3, 3)).some((b) => b.type === "marker")).toBe(false);
    expect(blockOfMessage(blocks, "m5")).toBe(6);
  });

  test("messages another program removed from the middle of history.json are marked off as archive only", () => {
    const list = messages(6, 0).map((m, i) => ({ ...m, recent: i !== 2 && i !== 3 }));
    expect(buildBlocks(list).map((b) => (b.type === "marker" ? b.text : b.message.id))).toEqual([
      "m0",
      "m1",
      PRUNED_MARKER,
      "m2",
      "m3",
      ARCHIVE_MARKER,
      "m4",
      "m5",
    ]);
  });
});

describe("HistoryViewport", () => {
  // Each message: header + 1 body line + blank = 3 lines at this width.
  const view = (n: number, height = 10) => {
    const v = new HistoryViewport(80, height);
    v.setBlocks(buildBlocks(messages(n)));
    return v;
  };

  test("shows whole lines from the top; scrolls by lines and pages; stops at both ends", () => {
    const v = view(20);
    expect(v.visible()).toHaveLength(10);
    expect(v.visible()[0]!.kind).toBe("header");
    expect(v.atTop()).toBe(true);
    v.move(1);
    expect(v.top).toEqual({ block: 0, line: 1 });
    page(v, 1);
    expect(v.top).toEqual({ block: 3, line: 1 }); // 1 + 9 lines
    v.move(-100);
    expect(v.atTop()).toBe(true);
    v.move(1000);
    expect(v.atBottom()).toBe(true);
    const last = v.visible();
    expect(last).toHaveLength(10);
    expect(last[last.length - 1]!.kind).toBe("blank");
    expect(last[last.length - 2]!.text).toContain("word19-0");
  });

  test("home / end, and a short history never scrolls", () => {
    const v = view(20);
    v.end();
    expect(v.top).toEqual({ block: 16, line: 2 }); // 60 lines, the last 10
    v.home();
    expect(v.top).toEqual({ block: 0, line: 0 });
    const short = view(2);
    short.end();
    expect(short.top).toEqual({ block: 0, line: 0 });
    expect(short.atBottom() && short.atTop()).toBe(true);
  });

  test("centres a message among its neighbours, clamped at the ends", () => {
    const v = new HistoryViewport(80, 9);
    const blocks = buildBlocks(messages(20));
    v.setBlocks(blocks, "m10");
    v.centerOn(blockOfMessage(blocks, "m10"));
    const shown = v.visible();
    const hitRows = shown.map((l, i) => (l.hit ? i : -1)).filter((i) => i >= 0);
    expect(hitRows).toEqual([3, 4]); // header + body in the middle of 9 rows
    expect(shown[0]!.block).toBe(9);
    v.centerOn(0);
    expect(v.atTop()).toBe(true);
    v.centerOn(19);
    expect(v.atBottom()).toBe(true);
  });

  test("centred on a message near the end, the view is at the end and follows new messages", () => {
    const same = (a: HistoryBlock, b: HistoryBlock) =>
      a.type === "message" && b.type === "message" && a.message.id === b.message.id;
    const v = new HistoryViewport(80, 9);
    v.setBlocks(buildBlocks(messages(20)), "m19");
    v.centerOn(19);
    v.replaceBlocks(buildBlocks(messages(21)), same);
    expect(v.atBottom()).toBe(true);
    expect(v.visible().some((l) => l.text.includes("word20-0"))).toBe(true);
    // Centred in the middle, it stays where it is.
    v.setBlocks(buildBlocks(messages(20)), "m10");
    v.centerOn(10);
    const top = v.top;
    v.replaceBlocks(buildBlocks(messages(21)), same);
    expect(v.top).toEqual(top);
  });

  test("the pane's position label follows lines: a long last message is not 100% from its first line", () => {
    const long = messages(3);
    long[2] = { ...long[2]!, content: Array.from({ length: 300 }, () => "line").join("\n") };
    const v = new HistoryViewport(80, 10);
    v.setBlocks(buildBlocks(long));
    expect(scrollLabel(v)).toBe("top");
    v.move(6); // the first line of the long message
    expect(v.top).toEqual({ block: 2, line: 0 });
    const at = Number(scrollLabel(v).replace("%", ""));
    expect(at).toBeGreaterThan(50);
    expect(at).toBeLessThan(80);
    v.move(150);
    const later = Number(scrollLabel(v).replace("%", ""));
    expect(later).toBeGreaterThan(at);
    expect(later).toBeLessThan(100);
    v.end();
    expect(scrollLabel(v)).toBe("end");
    // Many short messages: the label still goes from the top to the end through every value between.
    const many = view(200);
    many.move(295); // half of the 590 lines above the last page
    expect(scrollLabel(many)).toBe("50%");
  });

  test("a resize in the middle of a long message keeps that part of it at the top", () => {
    const long = messages(3);
    long[1] = { ...long[1]!, content: Array.from({ length: 400 }, (_, i) => `w${i}`).join(" ") };
    const v = new HistoryViewport(80, 10);
    v.setBlocks(buildBlocks(long));
    v.move(3 + 1 + 10); // block 1: past its header and ten lines of its body
    const shown = v.visible()[0]!.text.trim().split(" ")[0]!;
    v.setSize(40, 10);
    expect(v.top.block).toBe(1);
    expect(v.visible()[0]!.text.trim().split(" ")).toContain(shown);
    v.setSize(120, 10);
    expect(v.visible()[0]!.text.trim().split(" ")).toContain(shown);
  });

  test("the message at the top is the one whose text is on the top row, a long one scrolled into included", () => {
    const long = messages(3);
    long[1] = { ...long[1]!, content: Array.from({ length: 400 }, (_, i) => `w${i}`).join(" ") };
    const v = new HistoryViewport(80, 10);
    v.setBlocks(buildBlocks(long));
    expect(v.currentBlock()).toBe(0);
    v.move(1); // the first message's text
    expect(v.currentBlock()).toBe(0);
    v.move(1); // only its blank line is left at the top
    expect(v.currentBlock()).toBe(1);
    v.move(5); // inside the long message, its header scrolled away: still it
    expect(v.visible()[0]!.block).toBe(1);
    expect(v.currentBlock()).toBe(1);
  });

  test("wrapping follows the width; a resize keeps the top message", () => {
    const v = new HistoryViewport(80, 10);
    v.setBlocks(buildBlocks(messages(10, 0, 30)));
    const wide = v.lines(0).length;
    v.move(wide + 1);
    expect(v.top.block).toBe(1);
    v.setSize(30, 10);
    expect(v.lines(0).length).toBeGreaterThan(wide);
    expect(v.top).toEqual({ block: 1, line: 1 }); // still its first line of text
    for (const l of v.visible().filter((x) => x.kind === "body")) expect(l.text.length).toBeLessThanOrEqual(28); // headers are cut when drawn
  });
});

describe("SearchState", () => {
  const result = (ids: string[]) => ({
    hits: ids.map((id) => ({
      message: { ...messages(1)[0]!, id },
      source: "archive" as const,
      score: 1,
      snippet: id,
      highlights: [] as [number, number][],
    })),
    notes: [],
  });

  test("builds requests from the inputs; a blank query clears the hits", () => {
    const s = new SearchState(20);
    s.open("sess");
    expect(s.request()).toBeUndefined();
    s.insert("deploy");
    let r = s.request()!;
    expect(r.options).toEqual({ query: "deploy", match: "hybrid", range: "all", limit: 20, typing: true });
    s.toggleScope();
    s.cycleRange();
    s.cycleMode();
    r = s.request()!;
    expect(r.options).toEqual({
      query: "deploy",
      match: "keyword",
      range: "1d",
      limit: 20,
      typing: true,
      session: "sess",
    });
    s.clearQuery();
    expect(s.request()).toBeUndefined();
    expect(s.hits).toEqual([]);
  });

  test("mode, scope and range cycle; scope stays 'all' with no session", () => {
    const s = new SearchState();
    s.open(undefined);
    s.toggleScope();
    expect(s.scope).toBe("all");
    const modes = [s.mode];
    for (let i = 0; i < 3; i++) {
      s.cycleMode();
      modes.push(s.mode);
    }
    expect(modes).toEqual(["hybrid", "keyword", "semantic", "hybrid"]);
    const ranges = [s.range];
    for (let i = 0; i < 5; i++) {
      s.cycleRange();
      ranges.push(s.range);
    }
    expect(ranges).toEqual(["all", "1d", "7d", "30d", "1y", "all"]);
  });

  test("an older answer never replaces a newer one; the selection stays on its hit", () => {
    const s = new SearchState();
    s.insert("de");
    const first = s.request()!;
    s.insert("ploy");
    const second = s.request()!;
    expect(s.accept(second, result(["a", "b", "c"]))).toBe(true);
    expect(s.accept(first, result(["x"]))).toBe(false);
    expect(s.hits.map((h) => h.message.id)).toEqual(["a", "b", "c"]);
    s.cursor.move(1);
    s.userMoved();
    const third = s.request()!;
    s.accept(third, result(["c", "b"]));
    expect(s.selectedHit()!.message.id).toBe("b");
    expect(s.answered).toEqual({ query: "deploy", match: "hybrid", newest: false });
  });

  test("the ranked answer starts on its best hit unless the user moved the cursor", () => {
    const s = new SearchState();
    s.insert("deploy");
    const quick = s.request(true)!;
    expect(s.accept(quick, result(["new1", "new2", "best"]))).toBe(true);
    expect(s.selectedHit()!.message.id).toBe("new1");
    const full = s.request()!;
    s.accept(full, result(["best", "new2", "new1"]));
    expect(s.selectedHit()!.message.id).toBe("best");
    // Moved by the user: the next answer keeps the chosen hit.
    s.cursor.move(1);
    s.userMoved();
    s.accept(s.request()!, result(["other", "best", "new2"]));
    expect(s.selectedHit()!.message.id).toBe("new2");
    // A new query starts on the best hit again.
    s.insert(" server");
    s.accept(s.request()!, result(["top", "new2"]));
    expect(s.selectedHit()!.message.id).toBe("top");
  });

  test("a quick request asks for keyword matches newest first; the full one for the chosen mode", () => {
    const s = new SearchState();
    s.insert("deploy");
    const quick = s.request(true)!;
    expect(quick.options).toMatchObject({ query: "deploy", match: "keyword", order: "newest" });
    const full = s.request()!;
    expect(full.options.match).toBe("hybrid");
    expect(full.options.order).toBeUndefined();
    expect(s.accept(quick, result(["x"]))).toBe(false); // the full answer is the current one now
    expect(s.accept(full, result(["a"]))).toBe(true);
    expect(s.answered).toEqual({ query: "deploy", match: "hybrid", newest: false });
  });

  test("an unavailable mode falls back to keyword until it is chosen again", () => {
    const s = new SearchState();
    s.insert("deploy");
    s.markUnavailable("hybrid", "no embedder");
    expect(s.request()!.options.match).toBe("keyword");
    expect(s.modeLabel()).toBe("hybrid unavailable → keyword");
    s.cycleMode(); // keyword
    s.cycleMode(); // semantic
    s.cycleMode(); // hybrid: tried again
    expect(s.request()!.options.match).toBe("hybrid");
  });

  test("failures of the latest request are kept; stale ones ignored", () => {
    const s = new SearchState();
    s.insert("a");
    const r1 = s.request()!;
    const r2 = s.request()!;
    expect(s.fail(r1, "boom")).toBe(false);
    expect(s.fail(r2, "boom")).toBe(true);
    expect(s.error).toBe("boom");
  });
});

describe("Debouncer", () => {
  test("only the last action runs, once the delay has passed", () => {
    const pending: { fn: () => void; at: number }[] = [];
    const timers: Timers = {
      set: (fn, ms) => {
        const t = { fn, at: ms };
        pending.push(t);
        return t;
      },
      clear: (h) => pending.splice(pending.indexOf(h as never), 1),
    };
    const d = new Debouncer(50, timers);
    const ran: string[] = [];
    d.schedule(() => ran.push("a"));
    d.schedule(() => ran.push("b"));
    expect(pending).toHaveLength(1);
    expect(d.pending).toBe(true);
    pending.shift()!.fn();
    expect(ran).toEqual(["b"]);
    expect(d.pending).toBe(false);
    d.schedule(() => ran.push("c"));
    d.cancel();
    expect(pending).toHaveLength(0);
  });
});

describe("movement keys and the text pager", () => {
  test("a key moves only when its family is taken; other keys move nothing", () => {
    const c = new ListCursor(100, 10);
    expect(applyMotion(c, "j", ["arrows"])).toBe(false);
    expect(c.selected).toBe(0);
    expect(applyMotion(c, "j", ["arrows", "vi"])).toBe(true);
    expect(applyMotion(c, "C-n", ["emacs"])).toBe(true);
    expect(c.selected).toBe(2);
    expect(applyMotion(c, "pagedown", ["arrows"])).toBe(true);
    expect(c.selected).toBe(11);
    expect(applyMotion(c, "S-g", ["viPages"])).toBe(true);
    expect(c.selected).toBe(99);
    expect(applyMotion(c, "home", ["arrows"])).toBe(false);
    expect(applyMotion(c, "constructor", ["arrows", "edges", "emacs", "vi", "viPages"])).toBe(false);
    expect(applyMotion(c, undefined, ["arrows"])).toBe(false);
  });

  test("the pager keeps its offset in range, pads the window and says when more follows", () => {
    const p = new TextPager();
    const lines = Array.from({ length: 25 }, (_, i) => `line ${i}`);
    let w = p.window(lines, 10, 4, (l) => l);
    expect([w.shown[0], w.shown.length, w.more]).toEqual(["line 0", 10, true]);
    page(p, 1);
    expect(p.offset).toBe(9);
    p.end();
    w = p.window(lines, 10, 4, (l) => l);
    expect([p.offset, w.shown[9], w.more]).toEqual([15, "line 24", false]);
    p.move(-100);
    expect(p.offset).toBe(0);
    w = p.window(lines.slice(0, 3), 10, 4, (l) => l);
    expect(w.shown.slice(2)).toEqual(["line 2", ...Array(7).fill("    ")]);
  });
});

describe("search status line", () => {
  test("an empty ranked answer says no close matches; an empty keyword answer says no matches", () => {
    const theme = new Theme("mono");
    for (const [mode, want] of [
      ["hybrid", "no close matches"],
      ["keyword", "no matches"],
    ] as const) {
      const s = new SearchState(20);
      while (s.mode !== mode) s.cycleMode();
      s.insert("xyzzy plugh ");
      const req = s.request(false)!;
      s.accept(req, { hits: [], notes: [], emptyReason: "nothing close" });
      const screen = renderSearch(s, theme, 100, 10).join("\n");
      expect(screen).toContain(`${want} for "xyzzy plugh `);
      if (mode === "keyword") expect(screen).not.toContain("no close matches");
    }
  });
});

describe("search status with a long query", () => {
  test("a pasted error as the query leaves room for the reason and the notes in the status rows", () => {
    const s = new SearchState(20);
    const pasted = `TypeError: Cannot read properties of undefined (reading 'map') ${"at render (app/components/List.tsx:42:17) ".repeat(12)}`;
    s.insert(pasted);
    const req = s.request(false)!;
    s.accept(req, {
      hits: [],
      notes: ["3 messages are not indexed yet: run memvoy reindex --pending"],
      emptyReason: "no message holds the query's terms",
    });
    const screen = renderSearch(s, new Theme("mono"), 80, 20).join("\n");
    expect(screen).toContain("no message holds the query's terms");
    expect(screen).toContain("reindex --pending");
    expect(screen).toContain("TypeError: Cannot read properties");
  });
});

describe("search hit rows", () => {
  test("a coloured tool output's hit shows its text without the escapes' bodies, the match still marked", () => {
    const s = new SearchState(20);
    s.insert("deploy");
    const snippet = "\x1b[1mERROR\x1b[0m \x1b[31mdeploy\x1b[0m failed";
    const at = snippet.indexOf("deploy");
    const hit = { ...messages(1)[0]!, id: "m0", content: snippet };
    s.accept(s.request()!, {
      hits: [{ message: hit, source: "recent", score: 1, snippet, highlights: [[at, at + 6]] }],
      notes: [],
    });
    const theme = new Theme("mono");
    const row = renderSearch(s, theme, 60, 10).find((l) => l.includes("failed"))!;
    expect(row).toContain(`ERROR ${theme.marked("deploy", [[0, 6]])} failed`);
    expect(row).not.toContain("[31m");
  });

  test("a sender with colour codes heads its hit as the history pane shows it: the escapes' bodies are not shown", () => {
    const s = new SearchState(20);
    s.insert("deploy");
    const hit = { ...messages(1)[0]!, id: "m0", content: "deploy", sender: "\x1b[31mci-bot\x1b[0m\x1b]0;T\x07" };
    s.accept(s.request()!, {
      hits: [{ message: hit, source: "recent", score: 1, snippet: "deploy", highlights: [[0, 6]] }],
      notes: [],
    });
    const head = renderSearch(s, new Theme("mono"), 80, 10).find((l) => l.includes("ci-bot"))!;
    expect(head).toContain("· user · ci-bot · recent");
    expect(head).not.toContain("[31m");
  });

  test("a match beyond the row's end in a long CJK snippet is brought into view, its highlight kept on it", () => {
    const text = "部署伺服器失敗了，請檢查日誌。".repeat(5) + "🚀資料庫遷移完成";
    const at = text.indexOf("資料庫");
    const shown = snippetForRow(text, [[at, at + 3]], 78);
    expect(shown.text.startsWith("…")).toBe(true);
    const [[s, e]] = shown.highlights as [[number, number]];
    expect(shown.text.slice(s, e)).toBe("資料庫");
    expect(stringWidth(shown.text.slice(0, e))).toBeLessThan(78);
    expect(shown.text.isWellFormed()).toBe(true);
    // A match that shows already is left where it is.
    expect(snippetForRow(text, [[2, 4]], 78)).toEqual({ text, highlights: [[2, 4]] });
  });
});

describe("a ranked answer that cannot search", () => {
  test("no hits because the vectors are another embedder's: the notes say why; any hit is an answer", () => {
    const note =
      "the configured embedder is ollama:x:768 (stored vectors come from builtin:v1:384): run memvoy reindex";
    expect(cannotAnswer({ hits: [], notes: [note], reindexNeeded: true })).toBe(note);
    expect(cannotAnswer({ hits: [], notes: [], emptyReason: "no close matches" })).toBeUndefined();
    const hit = { ...messages(1)[0]!, id: "m0" };
    const one = { message: hit, source: "archive" as const, score: 1, snippet: "", highlights: [] };
    expect(cannotAnswer({ hits: [one], notes: [note], reindexNeeded: true })).toBeUndefined();
  });

  test("the reason wraps onto more status rows instead of being cut", () => {
    const s = new SearchState(20);
    s.insert("rollback");
    s.markUnavailable("hybrid", "x".repeat(30) + " " + "y".repeat(60) + " end-of-the-reason");
    s.accept(s.request()!, { hits: [], notes: [] });
    const screen = renderSearch(s, new Theme("mono"), 80, 12).join("\n");
    expect(screen).not.toContain("…");
    expect(screen).toContain("end-of-the-reason");
  });
});

describe("text fields", () => {
  test("a query or filter wider than its field shows its end, where typing goes", async () => {
    const { renderSessionList } = await import("../../src/tui/views/session-list-view.ts");
    const theme = new Theme("mono");
    const plain = (l: string) => l.replace(/\{[^}]*\}/g, "");
    const s = new SearchState(20);
    s.insert("how do we roll back the canary deployment when the error ratio goes above two percent 部署");
    const query = plain(renderSearch(s, theme, 80, 10)[0]!);
    expect(query).toMatch(/^Search: …[^…]* two percent 部署▏$/);
    const list = new SessionListState();
    list.setSessions([{ id: "s1", messages: 1, lastActivity: 1n, hasSummary: false }]);
    for (const ch of "/home/me/projects/my-app/backend") list.typeText(ch);
    const filter = plain(renderSessionList(list, theme, 30, 10, true, 2n)[0]!);
    expect(filter).toMatch(/^filter: …[^…]*app\/backend▏/);
  });
});

describe("session filter", () => {
  test("an accent stored decomposed (a macOS folder name) matches the same letter typed, and back", () => {
    const list = new SessionListState();
    list.setSessions([
      { id: "s1", messages: 1, lastActivity: 1n, hasSummary: false, title: "Re\u0301sume\u0301 review" },
      { id: "s2", messages: 1, lastActivity: 2n, hasSummary: false, project: "/Users/me/Proje\u0301ts/cafe\u0301" },
      { id: "s3", messages: 1, lastActivity: 3n, hasSummary: false, title: "Café menu" },
    ]);
    list.typeText("résumé");
    expect(list.visible.map((s) => s.id)).toEqual(["s1"]);
    list.clearFilter();
    list.typeText("café");
    expect(list.visible.map((s) => s.id).sort()).toEqual(["s2", "s3"]);
    list.clearFilter();
    list.typeText("cafe\u0301 menu");
    expect(list.visible.map((s) => s.id)).toEqual(["s3"]);
  });
});

describe("session list view", () => {
  test("the columns fit the list's largest count and any age on every page, so scrolling does not move them", async () => {
    const { renderSessionList } = await import("../../src/tui/views/session-list-view.ts");
    const { age } = await import("../../src/tui/text/format.ts");
    const now = 1_790_000_000_000_000_000n;
    // Every age the list can show fits the 4 cells its column is given.
    for (let s = 1; s < 4e9; s = Math.ceil(s * 1.3))
      expect(age(now - BigInt(s) * 1_000_000_000n, now).length).toBeLessThanOrEqual(4);
    expect(age(0n, now)).toBe("-");
    // The largest count is on the last page.
    const sessions = Array.from({ length: 40 }, (_, i) => ({
      id: `s${i}`,
      messages: i === 39 ? 1_234_567 : i,
      lastActivity: now - BigInt(i) * 86_400_000_000_000n,
      hasSummary: false,
    }));
    const state = new SessionListState();
    state.cursor.setHeight(10);
    state.setSessions(sessions);
    // Rows without blessed's tags; each count ends under the header's MSGS.
    const page = () =>
      renderSessionList(state, new Theme("mono"), 40, 12, true, now).map((l) => l.replace(/\{[^}]*\}/g, ""));
    const countEnds = (lines: string[]) => {
      const at = lines[1]!.indexOf("MSGS") + 3;
      return lines.slice(2).map((l) => /\d/.test(l[at]!) && !/\d/.test(l[at + 1]!));
    };
    const first = page();
    state.cursor.move(39);
    const last = page();
    expect(last.some((l) => l.includes("1,234,567"))).toBe(true);
    expect(first[1]).toBe(last[1]); // the header
    expect([...countEnds(first), ...countEnds(last)].every(Boolean)).toBe(true);
  });
});

describe("status info row", () => {
  test("at 80 columns the counts stay whole: the embedder gives way first, then the home's path shortens", async () => {
    const { renderStatusRows } = await import("../../src/tui/views/status-view.ts");
    const { StatusState } = await import("../../src/tui/state/status-state.ts");
    const theme = new Theme("mono");
    const plain = (l: string) => l.replace(/\{[^}]*\}/g, "");
    const s = new StatusState();
    s.info = {
      home: "/srv/agents/memory-home",
      daemon: "stopped",
      embedder: "openai:text-embedding-3-small",
      sessions: 1000,
      messages: 1_000_000,
      errors: 123,
    };
    const narrow = plain(renderStatusRows(s, theme, 80)[0]);
    expect(narrow).toContain("daemon stopped");
    expect(narrow).toContain("1,000 sessions · 1,000,000 msgs · 123 errors");
    expect(stringWidth(narrow.trimEnd())).toBeLessThanOrEqual(80);
    const wide = plain(renderStatusRows(s, theme, 160)[0]);
    expect(wide).toContain("/srv/agents/memory-home  daemon stopped  embedder openai:text-embedding-3-small  1,000");
  });
});

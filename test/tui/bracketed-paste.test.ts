// Pasted text is text: a bracketed paste goes into the field that has the keys, never runs keys elsewhere (a pasted
// q quit, a pasted d or x asked to delete), and the mode is off again for the pager and after quitting.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { PasteSplitter, type InputPart } from "../../src/tui/terminal/bracketed-paste.ts";
import { repoRoot } from "../fixture/home.ts";
import type { TmuxSession } from "../fixture/tmux.ts";
import { T, tuiSuite } from "../fixture/tui-home.ts";

const suite = tuiSuite();

const shown = (parts: InputPart[]) =>
  parts.map((p) => ("keys" in p ? `keys:${p.keys.toString("utf8")}` : `paste:${p.paste}`));

describe("the splitter", () => {
  test("keys around a paste stay keys; the paste is one text", () => {
    const s = new PasteSplitter();
    expect(shown(s.feed(Buffer.from("ab\x1b[200~quit now\x1b[201~\x1b[A")))).toEqual([
      "keys:ab",
      "paste:quit now",
      "keys:\x1b[A",
    ]);
    expect(shown(s.feed(Buffer.from("plain")))).toEqual(["keys:plain"]);
  });

  test("a paste over several reads, its end marker and a character cut between them", () => {
    const s = new PasteSplitter();
    // A long paste arrives in several reads; the start marker opens the first (the terminal writes it whole).
    const all = Buffer.from("\x1b[200~déploy 部署\x1b[201~q");
    const out: InputPart[] = [];
    for (let i = 0; i < all.length; i += i === 0 ? 7 : 3) out.push(...s.feed(all.subarray(i, i === 0 ? 7 : i + 3)));
    expect(shown(out)).toEqual(["paste:déploy 部署", "keys:q"]);
    expect(s.pasting).toBe(false);
  });

  test("a paste whose end never comes is given as it is by flush", () => {
    const s = new PasteSplitter();
    expect(shown(s.feed(Buffer.from("\x1b[200~half")))).toEqual([]);
    expect(s.pasting).toBe(true);
    expect(s.flush()).toBe("half");
    expect(shown(s.feed(Buffer.from("q")))).toEqual(["keys:q"]);
  });
});

/** Paste `text` into the pane as a terminal does (bracketed when the program asked for it). */
function paste(tui: TmuxSession, text: string): void {
  tui.command("set-buffer", "--", text);
  tui.command("paste-buffer", "-p", "-t", "t");
}

describe("under tmux", () => {
  test(
    "a paste in the session list filters it (a pasted q does not quit); in the history pane and the error list it runs no key",
    async () => {
      const tui = suite.start();
      await tui.waitFor("alpha-deploy");
      paste(tui, "quick zh\n");
      let s = await tui.waitFor("filter: quick zh");
      expect(s).toContain("Sessions 0/4");
      tui.keys("Escape");
      await tui.waitForGone("filter: quick zh");
      paste(tui, "zh-trip");
      s = await tui.waitFor("filter: zh-trip");
      expect(s).toMatch(/zh-trip\s+2 /);
      tui.keys("Escape", "Enter"); // clear the filter, into the history pane
      await tui.waitFor("↑↓ PgUp PgDn scroll");
      // r asked to reset, x to remove, o opened the pager, e the error memory, s the summary
      paste(tui, "proxy xoes");
      s = await tui.waitFor("the paste was ignored");
      expect(s).not.toContain("Reset session");
      expect(s).not.toContain("Remove session");
      expect(s).not.toContain("Error memory");
      tui.keys("e");
      await tui.waitFor("Error memory · 3 records");
      paste(tui, "dq");
      s = await tui.waitFor("the paste was ignored");
      expect(s).not.toContain("Delete error record");
      expect(s).toContain("Error memory · 3 records");
      tui.type("/");
      await tui.waitFor("typing searches the records");
      paste(tui, "jq: command");
      await tui.waitFor("jq: command▏");
    },
    T,
  );

  test(
    "a paste into search is the query; a paste is no answer to a confirmation",
    async () => {
      const tui = suite.start();
      await tui.waitFor("alpha-deploy");
      tui.type("/");
      await tui.waitFor("─ Search ─");
      paste(tui, "rollback\tplan\n");
      await tui.waitFor('hits for "rollback plan"');
      tui.keys("Escape", "Enter");
      await tui.waitFor("↑↓ PgUp PgDn scroll");
      tui.keys("r");
      await tui.waitFor("Reset session");
      paste(tui, "y");
      let s = await tui.waitFor("a paste is no answer");
      expect(s).toContain("Reset session");
      tui.keys("n");
      s = await tui.waitFor("cancelled; nothing was changed");
      expect(s).toMatch(/alpha-deploy · 40 msgs/);
    },
    T,
  );

  test(
    "after q the terminal has bracketed paste off again: the next program reads a paste as plain text",
    async () => {
      const tui = suite.start({
        argv: [
          "sh",
          "-c",
          `"$0" "${join(repoRoot, "src/index.ts")}" --home "$1"; exec cat -v`,
          process.execPath,
          suite.home,
        ],
      });
      await tui.waitFor("alpha-deploy");
      tui.keys("q");
      await tui.waitForGone("alpha-deploy");
      paste(tui, "after-quit");
      tui.keys("Enter");
      const s = await tui.waitFor(/after-quit\n/);
      expect(s).not.toContain("[200~");
    },
    T,
  );
});

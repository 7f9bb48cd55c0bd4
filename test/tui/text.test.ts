// Cell widths, truncation and wrapping as the TUI lays text out (CJK takes two cells).
import { describe, expect, test } from "bun:test";
import { drawnText, fieldTail, fit, stringWidth, truncate } from "../../src/tui/text/char-width.ts";
import { displayText, inlineText, inlineTextKeeping } from "../../src/shared/terminal-text.ts";
import { wrapLines } from "../../src/tui/text/wrap.ts";
import { age } from "../../src/tui/text/format.ts";

describe("cell widths", () => {
  test("ASCII is one cell, CJK two, a combining mark blessed's one unit; beyond the BMP, its two units (plus a filler)", () => {
    expect(stringWidth("deploy")).toBe(6);
    expect(stringWidth("部署服務")).toBe(8);
    expect(stringWidth("e\u0301")).toBe(2);
    expect(stringWidth("a\u200bb")).toBe(3);
    expect(stringWidth("𠮷")).toBe(3);
    expect(stringWidth("𝐀")).toBe(2);
    expect(stringWidth("ｶﾀｶﾅ")).toBe(4); // halfwidth katakana stays narrow
  });

  test("emoji are wide; a joined sequence is drawn as its parts and its joiners count nothing", () => {
    expect(stringWidth("✅")).toBe(2);
    expect(stringWidth("❤️")).toBe(1);
    expect(drawnText("🏳️‍🌈 👨‍👩‍👧 👍🏽 ❤️ 🏴󠁧󠁢󠁥󠁮󠁧󠁿")).toBe("🏳🌈 👨👩👧 👍 ❤ 🏴");
    for (const s of ["🏳️‍🌈", "👨‍👩‍👧", "👍🏽", "❤️", "🏴󠁧󠁢󠁥󠁮󠁧󠁿"]) expect(stringWidth(s)).toBe(stringWidth(drawnText(s)));
  });

  test("a text field's tail: the end of the text after an ellipsis, never wider than its room", () => {
    expect(fieldTail("deploy", 10)).toBe("deploy");
    expect(fieldTail("rollback plan", 6)).toBe("… plan");
    expect(fieldTail("部署服務", 6)).toBe("…服務");
    for (let room = 0; room < 9; room++)
      expect(stringWidth(fieldTail("部署服務 deploy", room))).toBeLessThanOrEqual(room);
  });

  test("truncate and fit never exceed the width, even across a wide character", () => {
    expect(truncate("部署服務", 5)).toBe("部署…");
    expect(stringWidth(truncate("部署服務", 5))).toBeLessThanOrEqual(5);
    expect(fit("ab", 4)).toBe("ab  ");
    expect(fit("部署服務", 6)).toBe("部署… ");
    expect(stringWidth(fit("部署服務", 6))).toBe(6);
  });
});

describe("wrapping", () => {
  test("breaks at spaces and keeps words whole", () => {
    expect(wrapLines("the quick brown fox jumps", 10)).toEqual(["the quick", "brown fox", "jumps"]);
  });

  test("hard-breaks a word longer than the line", () => {
    expect(wrapLines("abcdefghij", 4)).toEqual(["abcd", "efgh", "ij"]);
  });

  test("CJK breaks between any two characters and every line fits its cells", () => {
    const lines = wrapLines("我們今天下午要部署新的資料庫服務器", 9);
    expect(lines.join("")).toBe("我們今天下午要部署新的資料庫服務器");
    for (const l of lines) expect(stringWidth(l)).toBeLessThanOrEqual(9);
    expect(lines[0]).toBe("我們今天");
  });

  test("mixed text fills lines with CJK after Latin words", () => {
    const lines = wrapLines("Sure. 我們今天下午要部署", 10);
    for (const l of lines) expect(stringWidth(l)).toBeLessThanOrEqual(10);
    expect(lines).toEqual(["Sure. 我們", "今天下午要", "部署"]);
  });

  test("a line never starts with a mark cut from its character: Thai tone marks, accents typed apart, Hangul jamo", () => {
    const thai = "สวัสดีครับวันนี้อากาศดีมากเราจะไปเที่ยวทะเลกันที่หัวหินพรุ่งนี้เช้า";
    const korean = "한국어 문장".normalize("NFD").repeat(3); // as macOS writes file names
    for (const [text, width] of [
      [thai, 12],
      ["e\u0301".repeat(30), 7],
      [korean, 5],
    ] as const) {
      const lines = wrapLines(text, width);
      expect(lines.join("").replace(/ /g, "")).toBe(text.replace(/ /g, ""));
      for (const l of lines) {
        expect(l).not.toMatch(/^[\p{M}\u1160-\u11ff]/u);
        expect(stringWidth(l)).toBeLessThanOrEqual(width);
      }
    }
    expect(wrapLines(thai, 12)[3]).toStartWith("ที่");
  });

  test("newlines start new lines and empty lines are kept", () => {
    expect(wrapLines("a\n\nb", 10)).toEqual(["a", "", "b"]);
  });
});

describe("sanitising", () => {
  test("escape sequences and controls never reach the terminal", () => {
    expect(displayText("red \x1b[31mtext\x1b[0m\tend\r\nnext\x07")).toBe("red text    end\nnext");
    const inline = inlineText("a\tb\nc");
    expect(inline).toBe("a b c");
  });

  test("bidi controls and other disputed format characters are dropped; Unicode separators break lines", () => {
    const stored = "a\u202eb\u202c c\u2066d\u2069 e\u061cf\ufeff g\u2028h\u2029i \u200dj\u200bk\u200el";
    expect(displayText(stored)).toBe("ab cd ef g\nh\ni \u200dj\u200bk\u200el");
    // Same length, for the highlight offsets of a search snippet.
    expect(inlineText(stored)).toBe("a b  c d  e f  g h i \u200dj\u200bk\u200el");
  });
});

describe("search snippets", () => {
  test("a coloured tool output's escapes are removed from a snippet, its highlights moved with the text", () => {
    const snippet = "…1mERROR\x1b[0m \x1b[31mdeploy\x1b[0m failed: \x1b]0;title\x07deploy again\x07";
    const at = (word: string, from = 0) =>
      [snippet.indexOf(word, from), snippet.indexOf(word, from) + word.length] as const;
    const first = at("deploy");
    const second = at("deploy", first[1]);
    const r = inlineTextKeeping(snippet, [first, second]);
    expect(r.text).toBe("…1mERROR deploy failed: deploy again ");
    expect(r.ranges.map(([s, e]) => r.text.slice(s, e))).toEqual(["deploy", "deploy"]);
    expect(inlineTextKeeping("plain\ttext", [[0, 5]])).toEqual({ text: "plain text", ranges: [[0, 5]] });
  });
});

describe("CJK line breaking", () => {
  test("closing punctuation never starts a line", () => {
    const lines = wrapLines("第一天：清水寺、二年坂、祇園。第二天：嵐山竹林與天龍寺。", 28);
    for (const l of lines) {
      expect(stringWidth(l)).toBeLessThanOrEqual(28);
      expect("、。，：").not.toContain(l[0]!);
    }
    expect(lines.join("")).toBe("第一天：清水寺、二年坂、祇園。第二天：嵐山竹林與天龍寺。");
  });
});

describe("ages", () => {
  test("compact, at most four cells", () => {
    const now = 1_000_000_000_000_000_000n;
    const ago = (sec: number) => now - BigInt(sec) * 1_000_000_000n;
    expect(
      [ago(5), ago(125), ago(7200), ago(3 * 86_400), ago(20 * 86_400), ago(100 * 86_400), ago(800 * 86_400)].map((t) =>
        age(t, now),
      ),
    ).toEqual(["now", "2m", "2h", "3d", "2w", "3mo", "2y"]);
    expect(age(0n, now)).toBe("-");
  });
});

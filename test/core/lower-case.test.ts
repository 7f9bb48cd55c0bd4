import { describe, expect, test } from "bun:test";
import { lowerCase } from "../../src/shared/lower-case.ts";

describe("lowerCase", () => {
  test("is toLowerCase for every code point, and for text mixing them", () => {
    const differ: number[] = [];
    for (let c = 0; c <= 0x10ffff; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      const s = String.fromCodePoint(c);
      if (lowerCase(s) !== s.toLowerCase()) differ.push(c);
    }
    expect(differ).toEqual([]);
    for (const s of ["数据库 ログ", "ΟΔΟΣ", "ǅungla", "İstanbul", "Ⅻ ⓐⒶ", "straße STRASSE", "déjà vu", "𐐀𐐨"])
      expect(lowerCase(s)).toBe(s.toLowerCase());
  });

  test("returns the string itself when nothing changes", () => {
    const s = "已经 lower 数据库";
    expect(lowerCase(s)).toBe(s);
  });
});

import { describe, expect, test } from "bun:test";
import { recordTime } from "../../src/import/record-time.ts";
import { parseTime } from "../../src/shared/time.ts";
import { seededRandom } from "../fixture/seeded-random.ts";

describe("record times", () => {
  test("the fast form gives exactly what parseTime gives, and falls back to it for every other form", () => {
    const cases = [
      "2026-01-31T12:34:56.789Z",
      "2026-01-31T12:34:56Z",
      "2024-02-29T00:00:00.1Z",
      "2023-02-29T00:00:00Z",
      "2026-12-31T23:59:60.123456789Z",
      "2026-13-01T00:00:00Z",
      "1969-12-31T23:59:59Z",
      "2026-01-31T12:34:56.Z",
      "2026-01-31T24:00:00Z",
      "2026-04-31T00:00:00Z",
      "2026-01-31T12:34:56.7891234567Z",
      "2026-01-31 12:34:56Z",
      "2026-01-31T12:34:56,5Z",
      "2026-01-31T12:34:56.5+02:00",
      "2026-0a-31T12:34:56Z",
      "1767225600",
      "",
    ];
    const next = seededRandom(7);
    for (let i = 0; i < 2000; i++) {
      const iso = new Date(Math.floor(next() * 4e12)).toISOString();
      cases.push(iso, iso.replace(/\.\d+Z$/, `.${String(Math.floor(next() * 1e6)).padStart(6, "0")}Z`));
    }
    for (const c of cases) expect([c, recordTime(c)]).toEqual([c, parseTime(c)]);
    expect(recordTime("2026-01-31T12:34:56.789Z")).toBe(1_769_862_896_789_000_000n);
  });
});

// The error-memory browser's detail as lines, without a terminal: a long error leaves room for the fix.
import { expect, test } from "bun:test";
import { ErrorMemoryState } from "../../src/tui/state/error-memory-state.ts";
import { Theme } from "../../src/tui/theme.ts";
import { renderErrorMemory } from "../../src/tui/views/error-memory-view.ts";

const NOW = 1_765_000_000_000_000_000n;
const record = (error: string) => ({
  id: "deb6741e",
  tool: "pytest",
  error,
  cause: "the fixture opens the database before the migration ran",
  fix: "run the migrations in the session fixture, before any test opens a connection",
  outcome: "resolved" as const,
  keywords: ["pytest", "migrations"],
  createdAt: NOW,
  updatedAt: NOW,
  expiresAt: NOW + 90n * 86_400_000_000_000n,
  hits: 0,
  occurrences: 1,
  embedded: true,
});

test("a record whose error is a long stack trace still shows its cause and fix, the error cut with a note", () => {
  const trace = Array.from({ length: 60 }, (_, i) => `  File "app/db.py", line ${i + 1}, in connect`).join("\n");
  const s = new ErrorMemoryState();
  s.setList({ total: 1, records: [record(`Traceback (most recent call last):\n${trace}\nOperationalError`)] });
  s.detail = true;
  const screen = renderErrorMemory(s, new Theme("mono"), 80, 22, NOW).join("\n");
  expect(screen).toContain("Traceback (most recent call last):");
  expect(screen).toMatch(/… \d+ more lines: o shows the whole record/);
  expect(screen).toContain("the fixture opens the database before the migration ran");
  expect(screen).toContain("run the migrations in the session fixture");
  expect(screen).toContain("keywords: pytest, migrations");
  // A record that fits is shown whole, with no note.
  s.setList({ total: 1, records: [record("OperationalError: no such table: users")] });
  const whole = renderErrorMemory(s, new Theme("mono"), 80, 22, NOW).join("\n");
  expect(whole).toContain("OperationalError: no such table: users");
  expect(whole).not.toContain("more line");
});

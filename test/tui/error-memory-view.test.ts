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

test("a search typed as a pasted error still shows its notes: the query is cut in the status, which wraps", () => {
  const s = new ErrorMemoryState();
  const query = `sqlite3.OperationalError: no such table: users ${"while running migration 0042_add_users ".repeat(4)}`;
  s.insert(query);
  const ticket = s.nextSearch(query);
  s.setSearch(ticket, query, { hits: [], notes: [], notEmbedded: 2 } as never);
  for (const width of [80, 100]) {
    const rows = renderErrorMemory(s, new Theme("mono"), width, 20, NOW);
    // The status wraps: read its rows as one text.
    const status = rows
      .slice(
        1,
        rows.findIndex((r) => r.startsWith("ID ")),
      )
      .map((r) => r.trim())
      .join(" ");
    expect(status).toContain('no records match "sqlite3.OperationalError');
    expect(status).toContain("2 record(s) not embedded yet: found by keyword only");
  }
});

// The session list's label: the id, then an imported session's title, source and project.
import { expect, test } from "bun:test";
import { fittedSessionLabel, sessionLabel } from "../../src/tui/views/session-list-view.ts";

test("an imported session shows its title, source and project folder; a plain one its id", () => {
  const imported = { id: "cc-1", title: "Fix the\nlogin", source: "claude-code", project: "/home/ann/webshop" };
  expect(sessionLabel(imported as never)).toBe("cc-1 · Fix the login · [claude-code webshop]");
  expect(sessionLabel({ id: "cc-2", source: "codex" } as never)).toBe("cc-2 · [codex]");
  expect(sessionLabel({ id: "plain" } as never)).toBe("plain");
});

test("stored text in a title or project reaches the list as text: escape sequences, controls and bidi overrides removed", () => {
  const s = {
    id: "cc-3",
    title: "Fix \x1b]0;PWNED\x07the\u202e build\u0085",
    source: "claude-code",
    project: "/w/a\u009bb",
  };
  expect(sessionLabel(s as never)).toBe("cc-3 · Fix the build · [claude-code ab]");
});

test("a label too wide for the list keeps a prefix of a long id and shows the title; a short id's title is cut at its end", () => {
  const long = { id: "gpt-67a1b2c3-d4e5-8f90-a1b2-c3d4e5f6a7b8", title: "Sourdough schedule", source: "chatgpt" };
  expect(fittedSessionLabel(long as never, 32)).toBe("gpt-67a1b… · Sourdough schedule…");
  expect(fittedSessionLabel(long as never, 16)).toBe("gpt-67a… · Sour…");
  expect(fittedSessionLabel({ id: "cc-1", title: "A rather long title for the list" } as never, 16)).toBe(
    "cc-1 · A rather…",
  );
  expect(fittedSessionLabel({ id: "short", title: "T" } as never, 16)).toBe("short · T");
});

test("an id that fits the list's column stays whole beside a title: sessions told apart by the end of their ids stay apart", () => {
  const a = { id: "sess-02998", title: "Title number 2998 about topic 1" };
  const b = { id: "sess-02999", title: "Title number 2999 about topic 2" };
  expect(fittedSessionLabel(a as never, 22)).toBe("sess-02998 · Title nu…");
  expect(fittedSessionLabel(b as never, 22)).toBe("sess-02999 · Title nu…");
  // No room for any of the title: the id alone.
  expect(fittedSessionLabel(b as never, 14)).toBe("sess-02999");
  expect(fittedSessionLabel(b as never, 10)).toBe("sess-02999");
  expect(fittedSessionLabel(b as never, 15)).toBe("sess-02999 · T…");
});

test("a plain id too wide for the list keeps its start and its end: ids that differ only at their end stay apart", () => {
  const ids = ["customer-support-2026-12-01", "customer-support-2026-12-02", "slack-C04ABCDEF-1701234567"];
  const shown = ids.map((id) => fittedSessionLabel({ id } as never, 16));
  expect(shown).toEqual(["custome…26-12-01", "custome…26-12-02", "slack-C…01234567"]);
  for (const label of shown) expect(label.length).toBe(16);
  expect(fittedSessionLabel({ id: "x".repeat(40) } as never, 4)).toBe("x…xx");
  expect(fittedSessionLabel({ id: "customer-support-2026-12-01" } as never, 27)).toBe("customer-support-2026-12-01");
});

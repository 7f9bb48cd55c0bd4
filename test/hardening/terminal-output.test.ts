// Stored text cannot drive the terminal: the readable output drops its escape sequences and control characters
// (an agent's or a tool's output often holds colour codes; a hostile one could set the title or the clipboard,
// or overwrite a line with a carriage return), while --json keeps the text as stored.
import { afterAll, expect, test } from "bun:test";
import { cli, removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

const CONTENT = "deploy \x1b[31mred\x1b[0m, \x1b]52;c;aGk=\x07 clip, \r overwritten, del\x7f, c1\u009b";
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

test("history, search, context and error records print no escape sequence or control character; --json keeps them", async () => {
  const home = tempHome();
  expect(
    (await cli(["add", "s", "--role", "user", "--sender", "m\x1b[2Jx", "--content", CONTENT], { home })).code,
  ).toBe(0);
  expect(
    (
      await cli(["errors", "record", "--tool", "kubectl", "--error", `fail \x1b[1mhard\x1b[0m`, "--fix", "retry\x07"], {
        home,
      })
    ).code,
  ).toBe(0);
  for (const args of [
    ["history", "s"],
    ["search", "deploy"],
    ["context", "s"],
    ["errors", "search", "fail hard"],
    ["errors", "list"],
  ]) {
    const r = await cli(args, { home });
    expect({ args, code: r.code }).toEqual({ args, code: 0 });
    expect({ args, control: CONTROL.test(r.stdout) }).toEqual({ args, control: false });
  }
  const history = await cli(["history", "s"], { home });
  expect(history.stdout).toContain("deploy red,  clip, \n   overwritten, del, c1"); // a later line is indented
  expect(history.stdout).toContain("· mx]");
  const json = JSON.parse((await cli(["history", "s", "--json"], { home })).stdout) as {
    messages: { content: string }[];
  };
  expect(json.messages[0]!.content).toBe(CONTENT);
});

test("sessions prints an imported session's source without its escape sequences; --json keeps them", async () => {
  const home = tempHome();
  const source = "tool\x1b[2J\x1b]0;title\x07";
  const file = [
    JSON.stringify({ type: "session", id: "imp", source, title: "a \x1b[31mtitle" }),
    JSON.stringify({
      type: "message",
      id: "m-1",
      session: "imp",
      role: "user",
      content: "hello",
      sendAt: "2026-01-01T00:00:00Z",
    }),
  ].join("\n");
  expect((await cli(["import", "jsonl", "-"], { home, stdin: `${file}\n` })).code).toBe(0);
  const text = await cli(["sessions"], { home });
  expect(text.code).toBe(0);
  expect(CONTROL.test(text.stdout)).toBe(false);
  expect(text.stdout).toMatch(/imp .* tool\s+a title\n/);
  const json = JSON.parse((await cli(["sessions", "--json"], { home })).stdout) as { id: string; source?: string }[];
  expect(json.find((s) => s.id === "imp")!.source).toBe(source);
});

test("an error line quoting what was typed prints no escape sequence; --json keeps it", async () => {
  const r = await cli(["sessions", "--\x1b[2Jx\x1b]0;t\x07"], { home: tempHome() });
  expect(r.code).toBe(2);
  expect(r.stderr).toStartWith("memvoy: sessions: unknown option --x");
  expect(CONTROL.test(r.stderr)).toBe(false);
  const json = await cli(["sessions", "--json", "--\x1b[2Jx"], { home: tempHome() });
  expect(JSON.parse(json.stdout).error.message).toContain("\x1b[2Jx");
});

// export --format md keeps its outline whatever the messages and titles hold: a heading, an unclosed code fence or
// HTML in a message, a line break in a title, stay text; the JSONL export of the same home is unchanged.
import { afterAll, expect, test } from "bun:test";
import { cli, removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

const contents = [
  "# Heading in a message\n```python\nprint(1)\n",
  "````\nunclosed four",
  "a ``` run and a ````` run, then\n<details>\n\n## not a heading\n",
  "",
  "plain words",
];

const lines = [
  { type: "session", id: "a", title: "Fix the `deploy` *bug*\n# not a heading", project: "/home/u/my `proj`" },
  ...contents.map((content, i) => ({
    type: "message",
    id: `01M94NDVRNQW88ZXG2N1EBM9${i}A`,
    session: "a",
    role: i % 2 === 0 ? "user" : "assistant",
    content,
    sendAt: `2026-01-01T00:00:0${i}.000000000Z`,
    ...(i === 0 ? { sender: "ann\n# x" } : {}),
  })),
  { type: "session", id: "b", title: "second" },
  {
    type: "message",
    id: "01M94NDVRNQW88ZXG2N1EBM99B",
    session: "b",
    role: "user",
    content: "last",
    sendAt: "2026-01-02T00:00:00.000000000Z",
  },
];

/** Decode the few entities Bun's renderer writes in code blocks. */
function htmlText(html: string): string {
  return html.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"').replaceAll("&amp;", "&");
}

test("every message is one code block holding its exact text, under its own heading", async () => {
  const home = tempHome();
  const jsonl = `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`;
  expect((await cli(["import", "jsonl", "-"], { home, stdin: jsonl })).code).toBe(0);
  expect((await cli(["export", "--all"], { home })).stdout).toBe(jsonl);

  const md = await cli(["export", "--all", "--format", "md"], { home });
  expect(md.code).toBe(0);
  const html = Bun.markdown.html(md.stdout);
  const h1 = [...html.matchAll(/<h1>(.*?)<\/h1>/g)].map((m) => htmlText(m[1]!));
  expect(h1).toEqual(["Fix the `deploy` *bug* # not a heading", "second"]);
  const h2 = [...html.matchAll(/<h2>(.*?)<\/h2>/g)].map((m) => htmlText(m[1]!));
  expect(h2.length).toBe(contents.length + 1);
  expect(h2[0]).toBe("user (ann # x) · 2026-01-01T00:00:00.000000000Z");
  expect(html).toContain("<code>/home/u/my `proj`</code>");
  const blocks = [...html.matchAll(/<pre><code>([\s\S]*?)<\/code><\/pre>/g)].map((m) => htmlText(m[1]!));
  const shown = [...contents, "last"].map((c) => (c === "" || c.endsWith("\n") ? c : `${c}\n`));
  expect(blocks).toEqual(shown);
}, 60_000);

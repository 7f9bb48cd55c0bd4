// memvoy.1 is made from the help texts: every block of the page reads back as the matching --help output.
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json";
import { COMMAND_NAMES } from "../../src/cli/main.ts";
import { renderManPage, unroff } from "../../src/cli/man-page.ts";
import { cli, removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

/** The .nf/.fi blocks of the page, as plain text. */
function blocks(page: string): string[] {
  const out: string[] = [];
  let cur: string[] | undefined;
  for (const line of page.split("\n")) {
    if (line === ".nf") cur = [];
    else if (line === ".fi" && cur) {
      out.push(cur.map(unroff).join("\n") + "\n");
      cur = undefined;
    } else if (cur) cur.push(line);
  }
  return out;
}

describe("man page", () => {
  test("its text is memvoy --help, then each command's and subcommand's --help, in order", async () => {
    const page = await renderManPage(pkg.version);
    const got = blocks(page);
    const main = await cli(["--help"]);
    expect(got[0]).toBe(main.stdout.replace(/^\n+/, ""));
    const order = page
      .split("\n")
      .filter((l) => l.startsWith(".SS "))
      .map((l) => l.slice(4).replaceAll('"', ""));
    expect(order.filter((n) => !n.includes(" ")).sort()).toEqual([...COMMAND_NAMES].sort());
    // Each subcommand with a --help of its own has a section too.
    expect(order.filter((n) => n.startsWith("errors "))).toEqual(
      ["record", "search", "list", "show", "rm", "sweep"].map((s) => `errors ${s}`),
    );
    for (const [i, name] of order.entries()) {
      const help = await cli([...name.split(" "), "--help"]);
      expect(got[i + 1], name).toBe(help.stdout.replace(/^\n+/, ""));
    }
  }, 120_000);

  test("the build writes the same page beside the binary", async () => {
    const dir = tempHome();
    const built = join(dir, "memvoy.1");
    const page = await renderManPage(pkg.version);
    const proc = Bun.spawn(
      [
        process.execPath,
        "-e",
        `import { writeDocs } from "${join(import.meta.dir, "../../scripts/release-files.ts")}"; await writeDocs(process.argv[1]);`,
        dir,
      ],
      {
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    expect(await proc.exited).toBe(0);
    expect(readFileSync(built, "utf8")).toBe(page);
  });
});

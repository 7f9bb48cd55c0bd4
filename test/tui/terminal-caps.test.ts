// The terminal's capabilities, compiled when first used (blessed-widgets.ts): each gives what blessed's own
// compile-everything-at-start gives, for every capability of the terminals memvoy is run in.
import { expect, test } from "bun:test";
import "../../src/tui/terminal/blessed-widgets.ts";

type Tput = { strings: Record<string, string>; methods: Record<string, unknown> } & Record<string, unknown>;
type TputClass = new (options: { terminal: string }) => Tput;

const TERMINALS = ["xterm-256color", "tmux-256color", "screen-256color", "linux", "vt100", "rxvt-unicode-256color"];
// Enough parameters for any capability (cursor moves take two, colours one, sgr nine).
const PARAMS = [3, 7, 1, 0, 2, 5, 0, 1, 4];

test("every string capability gives the same output compiled on first use as compiled at start", () => {
  const path = require.resolve("blessed/lib/tput");
  const OnFirstUse = require(path) as TputClass;
  // A fresh copy of blessed's module, without the change blessed-widgets.ts makes to the one memvoy loads.
  delete require.cache[path];
  const AtStart = require(path) as TputClass;
  const compileOf = (c: TputClass) => (c as unknown as { prototype: { _compile: unknown } }).prototype._compile;
  expect(compileOf(AtStart)).not.toBe(compileOf(OnFirstUse));
  let compared = 0;
  for (const terminal of TERMINALS) {
    const lazy = new OnFirstUse({ terminal });
    const eager = new AtStart({ terminal });
    const keys = Object.keys(eager.strings).filter((k) => eager.strings[k]);
    expect(Object.keys(lazy.strings).sort()).toEqual(Object.keys(eager.strings).sort());
    for (const key of keys) {
      // A few capabilities throw in blessed's own printf (%X): they must throw the same way.
      const call = (t: Tput) => {
        try {
          return (t[key] as (...a: number[]) => unknown)(...PARAMS);
        } catch (err) {
          return { threw: String(err) };
        }
      };
      expect({ terminal, key, out: call(lazy) }).toEqual({ terminal, key, out: call(eager) });
      compared++;
    }
  }
  expect(compared).toBeGreaterThan(500);
});

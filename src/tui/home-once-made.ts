// The terminal UI on a home that does not exist yet: it reads as an empty home (the first-run screen) and creates
// nothing; once another command has made the home (memvoy demo, add, import), the next read opens the real one.
import { existsSync } from "node:fs";
import type { HomeMemory } from "../app/memory-api.ts";
import type { TuiMemory } from "./api-types.ts";

/** `empty` until the archive `db` exists, then what `open` returns, for every call from then on. */
export function homeOnceMade(db: string, empty: HomeMemory, open: () => HomeMemory): TuiMemory {
  let api = empty;
  const current = (): HomeMemory => {
    if (api === empty && existsSync(db)) {
      api = open();
      empty.close();
    }
    return api;
  };
  return new Proxy(empty, {
    get(_target, name) {
      const a = current();
      const value = Reflect.get(a, name, a);
      return typeof value === "function" ? value.bind(a) : value;
    },
  });
}

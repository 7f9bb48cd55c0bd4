// The SQL statements a `memvoy search` runs, in order, with their arguments: recorded in-process (the home
// opened as the command opens it, the search as it asks), to be replayed by bench/lib/search-replay.ts.
import { Database } from "bun:sqlite";
import { openMemory } from "../../src/app/open-memory.ts";
import type { SearchOptions } from "../../src/search/search-types.ts";
import type { TracedStep } from "./sql-steps.ts";

const METHODS = new Set(["all", "values", "get", "run", "iterate"]);

/** Every statement `memvoy search QUERY --json` runs on `home` (a command's connection: opened, searched, closed). */
export async function traceSearch(home: string, search: SearchOptions): Promise<TracedStep[]> {
  const steps: TracedStep[] = [];
  const proto = Database.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  const query = proto.query!;
  const run = proto.run!;
  proto.query = function (this: Database, sql: unknown) {
    const st = query.call(this, sql) as Record<string, unknown>;
    return new Proxy(st, {
      get(target, key) {
        const v = Reflect.get(target, key, target);
        if (typeof v !== "function") return v;
        if (!METHODS.has(key as string)) return v.bind(target);
        return (...args: unknown[]) => {
          const step: TracedStep = { sql: sql as string, method: key as TracedStep["method"], args };
          steps.push(step);
          const out = v.apply(target, args);
          if (key !== "iterate") return out;
          step.take = 0;
          return (function* () {
            for (const row of out as Iterable<unknown>) {
              step.take!++;
              yield row;
            }
          })();
        };
      },
    });
  };
  proto.run = function (this: Database, sql: unknown, ...args: unknown[]) {
    steps.push({ sql: sql as string, method: "exec", args });
    return run.call(this, sql, ...args);
  };
  try {
    const api = openMemory({ home, env: {}, drain: "detached", command: "search", shortLived: true });
    try {
      await api.search(search);
    } finally {
      api.close();
    }
  } finally {
    proto.query = query;
    proto.run = run;
  }
  return steps;
}

// A limit of `memvoy search --json` that runs the very SQL memvoy runs: open the database, replay every
// statement the search ran (recorded by bench/lib/sql-trace.ts, with its arguments and in its order), print the
// page's rows as JSON. What memvoy takes beyond it is its own code: loading it, and the work in JavaScript.
// search-replay DB STEPS_JSON. Compiled like memvoy (bench/cli-search.ts).
import { Database } from "bun:sqlite";
import { decodeSteps } from "./sql-steps.ts";

const [path, encoded] = process.argv.slice(2) as [string, string];
const db = new Database(path, { readonly: true, safeIntegers: true, strict: true });
let page: unknown[] = [];
for (const s of decodeSteps(encoded)) {
  if (s.method === "exec") {
    db.run(s.sql, ...(s.args as []));
    continue;
  }
  const st = db.query(s.sql);
  if (s.method === "iterate") {
    let n = 0;
    if (s.take) for (const _ of st.iterate(...(s.args as []))) if (++n >= s.take) break;
    continue;
  }
  const out = st[s.method](...(s.args as []));
  // The page: the last rows read whole (the hits' messages).
  if (Array.isArray(out) && out.length > 0 && typeof out[0] === "object" && "content" in out[0]) page = out;
}
const text = (_k: string, v: unknown) => (typeof v === "bigint" ? String(v) : v);
await Bun.write(Bun.stdout, JSON.stringify({ hits: page.slice(0, 10) }, text, 2) + "\n");
db.close();

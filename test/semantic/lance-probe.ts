// Preloaded into a CLI run: on exit, report on stderr whether LanceDB's native module was loaded.
import { readFileSync } from "node:fs";

process.on("exit", () => {
  const maps = readFileSync("/proc/self/maps", "utf8");
  process.stderr.write(`lancedb-loaded=${/lancedb[^/\n]*\.node/.test(maps)}\n`);
});

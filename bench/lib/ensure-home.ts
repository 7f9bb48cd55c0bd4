// A cached home for a spec, built in a child process when missing; the child's rows are passed on.
import { join, resolve } from "node:path";
import type { HomeSpec } from "./build-home.ts";
import { cachePath, isCached } from "./home-cache.ts";
import { ROWS_PREFIX, type BenchRow } from "./report.ts";
import { homeName } from "./sizes.ts";

export function ensureHome(spec: HomeSpec, rows: BenchRow[], options: { exportJsonl?: boolean } = {}): string {
  const name = homeName(spec);
  if (!isCached(name)) {
    const child = Bun.spawnSync(
      [
        "bun",
        join(import.meta.dir, "build-cli.ts"),
        JSON.stringify(spec),
        ...(options.exportJsonl ? ["--export"] : []),
      ],
      {
        cwd: resolve(import.meta.dir, "../.."),
        stdout: "pipe",
        stderr: "inherit",
      },
    );
    if (child.exitCode !== 0) throw new Error(`building ${name} failed (exit ${child.exitCode})`);
    for (const line of child.stdout.toString().split("\n")) {
      if (line.startsWith(ROWS_PREFIX)) rows.push(...(JSON.parse(line.slice(ROWS_PREFIX.length)) as BenchRow[]));
    }
  }
  return cachePath(name);
}

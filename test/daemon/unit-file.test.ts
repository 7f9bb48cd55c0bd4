// The systemd unit and the daemon's docs name every key the daemon reads from daemon.env.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..", "..");

test("the unit's set-up and docs/daemon.md name the embedder keys beside the summaries' one", () => {
  const unit = readFileSync(join(root, "contrib", "memvoy.service"), "utf8");
  const setup = unit
    .split("\n")
    .filter((l) => l.startsWith("#"))
    .join("\n");
  const doc = readFileSync(join(root, "docs", "daemon.md"), "utf8");
  const systemd = doc.slice(doc.indexOf("### Under systemd"), doc.indexOf("### Checking on it"));
  for (const text of [setup, systemd])
    for (const key of ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "VOYAGE_API_KEY"]) expect(text).toContain(key);
});

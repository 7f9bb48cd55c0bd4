// The systemd unit: the docs name every key the daemon reads from daemon.env, and a lost home is not remade.
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

test("the unit starts only while its home exists: a restart after the home was deleted does not make an empty one", () => {
  const unit = readFileSync(join(root, "contrib", "memvoy.service"), "utf8");
  const home = /^ExecStart=.* --home (\S+)$/m.exec(unit)?.[1];
  expect(home).toBe("%h/.config/memvoy");
  expect(unit).toMatch(/^Restart=on-failure$/m);
  expect(unit).toContain(`\nConditionPathIsDirectory=${home}\n`);
  // In [Unit], where systemd reads conditions.
  expect(unit.indexOf("ConditionPathIsDirectory=")).toBeLessThan(unit.indexOf("[Service]"));
});

// Every file and folder memvoy creates is private (0600 / 0700) whatever the umask, LanceDB's included; the
// memvoy program runs with umask 077, and the shell that started it keeps its own.
import { afterAll, expect, test } from "bun:test";
import { existsSync, lstatSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeTempHomes, repoRoot, tempHome, waitFor } from "../fixture/home.ts";

afterAll(removeTempHomes);

function walk(dir: string, out: { path: string; mode: number; dir: boolean }[] = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    const st = lstatSync(path);
    out.push({ path, mode: st.mode & 0o777, dir: st.isDirectory() });
    if (st.isDirectory()) walk(path, out);
  }
  return out;
}

async function sh(script: string) {
  const p = Bun.spawn(["sh", "-c", script], {
    cwd: tmpdir(),
    env: { PATH: process.env.PATH!, HOME: tmpdir() },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { out, err, code };
}

for (const umask of ["000", "022"]) {
  test(`under umask ${umask}: files 0600 and folders 0700, LanceDB's included`, async () => {
    const home = join(tempHome(), "home");
    const bin = `bun ${join(repoRoot, "src/index.ts")} --home ${home}`;
    const r = await sh(
      [
        `umask ${umask}`,
        `${bin} add s1 --role user --content "the deploy failed with exit 137"`,
        `${bin} add s1 --role assistant --content "raise the memory limit"`,
        `${bin} reindex --quiet`,
        `${bin} errors record --tool kubectl --error "OOMKilled exit 137" --fix "raise limits.memory"`,
        `${bin} search deploy --match semantic`,
        `${bin} reset s1`,
        `umask`,
      ].join(" && "),
    );
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out.trim().split("\n").at(-1)).toBe(umask.padStart(4, "0")); // the shell's umask is as it was
    const entries = walk(home);
    expect(entries.some((e) => e.path.includes(`${join(".store", "lance")}/`) && !e.dir)).toBe(true);
    const wrong = entries
      .filter((e) => e.mode !== (e.dir ? 0o700 : 0o600))
      .map((e) => `${e.path.slice(home.length)} ${e.mode.toString(8)}`);
    expect(wrong).toEqual([]);
    expect(lstatSync(home).mode & 0o777).toBe(0o700);
  });
}

test("after a lone add, once the background drain has written its vector, LanceDB's files are private too", async () => {
  // LanceDB replaces _versions/latest_version_hint.json at every commit: it must be made private each time.
  const home = join(tempHome(), "home");
  const bin = `bun ${join(repoRoot, "src/index.ts")} --home ${home}`;
  const r = await sh(`umask 022 && ${bin} add s1 --role user --content "the deploy failed with exit 137"`);
  expect(r.code).toBe(0);
  const wrong = () =>
    walk(home)
      .filter((e) => e.mode !== (e.dir ? 0o700 : 0o600))
      .map((e) => `${e.path.slice(home.length)} ${e.mode.toString(8)}`);
  const hint = () => walk(home).some((e) => e.path.endsWith("latest_version_hint.json"));
  await waitFor(() => hint() && wrong().length === 0, 15_000, "the drain's vector, with every file private").catch(
    () => undefined,
  );
  expect(hint()).toBe(true);
  expect(wrong()).toEqual([]);
}, 30_000);

test.skipIf(!existsSync("/proc/self/status"))(
  "the memvoy program runs with umask 077, whatever it was started with",
  async () => {
    const entry = join(repoRoot, "src/index.ts");
    const proc = Bun.spawn(["sh", "-c", `umask 000 && exec bun ${entry} --home ${join(tempHome(), "home")} mcp`], {
      env: { PATH: process.env.PATH!, HOME: tmpdir() },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      // The MCP server answers initialize, then waits on stdin: its umask is read while it runs.
      const init = { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "0" } };
      proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: init })}\n`);
      await proc.stdout.getReader().read();
      const status = readFileSync(`/proc/${proc.pid}/status`, "utf8");
      expect(/^Umask:\s*(\d+)$/m.exec(status)?.[1]).toBe("0077");
    } finally {
      proc.kill();
      await proc.exited;
    }
  },
);

test("the library under umask 000: LanceDB's files stay private after a deletion purges the old versions", async () => {
  // The library leaves its host's umask alone; the purge after rm-message, reset and rm rewrites the table's
  // files (a compaction and a new version), which must be made private like every other commit's.
  const home = join(tempHome(), "home");
  const script = `
    process.umask(0);
    const { openMemory } = await import(${JSON.stringify(join(repoRoot, "src/lib.ts"))});
    const memory = openMemory({ home: ${JSON.stringify(home)} });
    await memory.add("s1", [
      { role: "user", content: "the deploy failed with exit 137" },
      { role: "assistant", content: "raise the memory limit" },
    ]);
    await memory.search({ query: "deploy", match: "semantic" });
    const { messages } = await memory.history("s1");
    await memory.rmMessage(messages[0].id);
    await memory.close();
  `;
  const p = Bun.spawn(["bun", "-e", script], {
    cwd: tmpdir(),
    env: { PATH: process.env.PATH!, HOME: tmpdir() },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [err, code] = await Promise.all([new Response(p.stderr).text(), p.exited]);
  expect({ err, code }).toEqual({ err: "", code: 0 });
  const entries = walk(home);
  expect(entries.some((e) => e.path.includes(`${join(".store", "lance")}/`) && e.path.endsWith(".manifest"))).toBe(
    true,
  );
  const wrong = entries
    .filter((e) => e.mode !== (e.dir ? 0o700 : 0o600))
    .map((e) => `${e.path.slice(home.length)} ${e.mode.toString(8)}`);
  expect(wrong).toEqual([]);
}, 60_000);

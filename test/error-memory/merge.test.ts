import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { removeTempHomes } from "../fixture/home.ts";
import { DAY, T0, errorHome } from "./error-home.ts";

afterAll(removeTempHomes);

describe("recording the same error again", () => {
  test("two records of the same error with different numbers merge into one: newest fix and outcome, count bumped, TTL restarted", async () => {
    const { api, clock } = errorHome();
    const first = await api.recordError({
      tool: "psql",
      error: 'psql: error: connection to server at "localhost" (127.0.0.1), port 5432 failed: Connection refused',
      fix: "restarted the laptop",
      outcome: "failed",
      keywords: ["postgres"],
    });
    clock.now = T0 + 10n * DAY;
    const second = await api.recordError({
      tool: "psql",
      error: 'psql: error: connection to server at "db-2" (10.0.3.7), port 6543 failed: Connection refused',
      cause: "postgres was not running",
      fix: "sudo systemctl start postgresql",
      outcome: "resolved",
      keywords: "Connection Refused, postgres",
    });
    expect(first.merged).toBe(false);
    expect(second.merged).toBe(true);
    expect(second.record.id).toBe(first.record.id);
    const all = api.listErrors();
    expect(all.total).toBe(1);
    const r = all.records[0]!;
    expect(r.error).toContain("port 6543");
    expect(r.fix).toBe("sudo systemctl start postgresql");
    expect(r.outcome).toBe("resolved");
    expect(r.cause).toBe("postgres was not running");
    expect(r.keywords).toEqual(["postgres", "connection refused"]);
    expect(r.occurrences).toBe(2);
    expect(r.createdAt).toBe(T0);
    expect(r.updatedAt).toBe(T0 + 10n * DAY);
    expect(r.expiresAt).toBe(T0 + 100n * DAY);
    expect(r.embedded).toBe(true);
    api.close();
  });

  test("a merge without a cause keeps the earlier cause", async () => {
    const { api } = errorHome();
    await api.recordError({
      tool: "git",
      error: "fatal: refusing to merge unrelated histories",
      cause: "separate roots",
      fix: "a",
    });
    await api.recordError({ tool: "git", error: "fatal: refusing to merge unrelated histories", fix: "b" });
    const [r] = api.listErrors().records;
    expect([r!.cause, r!.fix, r!.occurrences]).toEqual(["separate roots", "b", 2]);
    api.close();
  });

  test("the same error from another tool, or another error from the same tool, is a new record", async () => {
    const { api } = errorHome();
    await api.recordError({
      tool: "npm",
      error: "EACCES: permission denied, mkdir '/usr/local/lib/node_modules/x'",
      fix: "set a user prefix",
    });
    await api.recordError({
      tool: "yarn",
      error: "EACCES: permission denied, mkdir '/usr/local/lib/node_modules/x'",
      fix: "set a user prefix",
    });
    await api.recordError({
      tool: "NPM",
      error: "EACCES: permission denied, mkdir '/opt/y'",
      fix: "tool names match in any case",
    });
    await api.recordError({
      tool: "npm",
      error: "EPERM: operation not permitted, mkdir '/usr/local/lib/node_modules/x'",
      fix: "another error",
    });
    const list = api.listErrors();
    expect(list.total).toBe(3);
    expect(list.records.find((r) => r.tool.toLowerCase() === "npm" && r.error.startsWith("EACCES"))!.occurrences).toBe(
      2,
    );
    api.close();
  });

  test("recording an error whose earlier record has expired starts a fresh record", async () => {
    const { api, clock } = errorHome();
    const old = await api.recordError({
      tool: "docker",
      error: "Cannot connect to the Docker daemon at unix:///var/run/docker.sock",
      fix: "start it",
    });
    clock.now = T0 + 91n * DAY;
    const again = await api.recordError({
      tool: "docker",
      error: "Cannot connect to the Docker daemon at unix:///run/user/1000/docker.sock",
      fix: "start the rootless daemon",
    });
    expect(again.merged).toBe(false);
    expect(again.record.id).not.toBe(old.record.id);
    expect(again.record.occurrences).toBe(1);
    expect(again.record.createdAt).toBe(T0 + 91n * DAY);
    expect(api.listErrors().records.map((r) => r.id)).toEqual([again.record.id]);
    api.close();
  });

  test("bad input changes nothing", async () => {
    const { api } = errorHome();
    const bad: Record<string, unknown>[] = [
      { tool: "git", error: "x", fix: "" },
      { tool: "", error: "x", fix: "y" },
      { tool: "git", error: "   ", fix: "y" },
      { tool: "git", error: "x", fix: "y", outcome: "maybe" },
      { tool: "git", error: "x", fix: "y", keywords: Array.from({ length: 40 }, (_, i) => `k${i}`) },
      { tool: "git", error: "x", fix: "y", extra: 1 },
      { tool: "git", error: "x".repeat(70 * 1024), fix: "y" },
      { tool: "git\nrm -rf", error: "x", fix: "y" },
    ];
    for (const input of bad) {
      await expect(api.recordError(input as never)).rejects.toMatchObject({ exitCode: 2 });
    }
    expect(api.listErrors().total).toBe(0);
    await expect(api.searchErrors({ query: "x", limit: 0 })).rejects.toThrow(/limit/);
    await expect(api.searchErrors({ query: " " })).rejects.toThrow(/query is empty/);
    api.close();
  });
});

test("a record signed under an older memvoy's rules still takes the same error recorded again", async () => {
  const { Database } = await import("bun:sqlite");
  const { home, api } = errorHome();
  const error = "OOMKilled: container web exceeded its memory limit 512Mi";
  const first = await api.recordError({ tool: "kubectl", error, fix: "raise the limit" });
  api.close();
  // The signature an older memvoy made (it kept the unit of 512Mi), and no record of the rules it used.
  const db = new Database(join(home, ".store", "history.db"));
  db.run("UPDATE error_records SET signature = 'oomkilled: container web exceeded its memory limit <n>mi'");
  db.run("DELETE FROM embed_state WHERE key = 'error_signature_rules'");
  db.close();

  const again = errorHome({}, home);
  const second = await again.api.recordError({ tool: "kubectl", error, fix: "raise the limit to 1Gi" });
  expect(second.merged).toBe(true);
  expect(second.record.id).toBe(first.record.id);
  expect(second.record.occurrences).toBe(2);
  expect(again.api.listErrors().total).toBe(1);
  again.api.close();
});

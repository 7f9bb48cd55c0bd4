// The daemon process: one per home (flock, recovered after kill -9), status, stop, signals, config errors.
import { afterAll, setDefaultTimeout, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  cleanup,
  cli,
  daemonState,
  logText,
  startDaemon,
  tempHome,
  waitFor,
  waitRunning,
} from "../fixture/daemon-process.ts";

// Real processes (bun start-up, LanceDB) and back-off waits: give each test room.
setDefaultTimeout(60_000);

afterAll(cleanup);

describe("one daemon per home", () => {
  test("a second daemon on the same home refuses naming the first; one on another home runs", async () => {
    const home = tempHome();
    const first = startDaemon(home);
    const s = await waitRunning(first);

    const second = startDaemon(home);
    expect(await second.exited).toBe(1);
    expect(second.stderr()).toContain(`already running on ${home} (pid ${first.proc.pid}, since ${s.startedAt})`);
    expect(first.proc.exitCode).toBeNull();

    const other = startDaemon(tempHome());
    await waitRunning(other);
    other.proc.kill("SIGTERM");
    first.proc.kill("SIGTERM");
    expect(await other.exited).toBe(0);
    expect(await first.exited).toBe(0);
  });

  test("kill -9 leaves no stale lock: a restart takes over", async () => {
    const home = tempHome();
    const d = startDaemon(home);
    await waitRunning(d);
    d.proc.kill(9);
    await d.exited;
    const st = await cli(home, ["daemon", "status", "--json"]);
    expect(st.code).toBe(1);
    expect(JSON.parse(st.stdout)).toMatchObject({ running: false, pid: d.proc.pid, stoppedAt: null });

    const again = startDaemon(home);
    const s = await waitRunning(again);
    expect(s.pid).toBe(again.proc.pid);
    again.proc.kill("SIGTERM");
    expect(await again.exited).toBe(0);
  });
});

describe("status and stop", () => {
  test("status reports pid, uptime and each job's next run; stop ends it", async () => {
    const home = tempHome();
    const d = startDaemon(home);
    await waitRunning(d);
    const st = await cli(home, ["daemon", "status", "--json"]);
    expect(st.code).toBe(0);
    const j = JSON.parse(st.stdout);
    expect(j).toMatchObject({ running: true, pid: d.proc.pid, home, lastError: null });
    expect(j.uptimeMs).toBeGreaterThanOrEqual(0);
    const maintenance = j.jobs.find((x: any) => x.name === "maintenance");
    expect(maintenance.schedule).toBe("30 3 * * *");
    expect(Date.parse(maintenance.nextRun)).toBeGreaterThan(Date.now());

    const text = await cli(home, ["daemon", "status"]);
    expect(text.stdout).toContain(`running (pid ${d.proc.pid}`);
    expect(text.stdout).toContain("maintenance");

    const stop = await cli(home, ["daemon", "stop"]);
    expect(stop.code).toBe(0);
    expect(stop.stdout).toContain(`stopped the daemon (pid ${d.proc.pid})`);
    expect(await d.exited).toBe(0);
    expect(daemonState(home)).toMatchObject({ status: "stopped" });

    const after = await cli(home, ["daemon", "status"]);
    expect(after.code).toBe(1);
    expect(after.stdout).toContain("not running");
    const again = await cli(home, ["daemon", "stop"]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("no daemon is running");
  });

  test("status gives a job's next run in the daemon's time zone, whatever the zone status runs in", async () => {
    const home = tempHome();
    const d = startDaemon(home, { TZ: "Asia/Tokyo", MEMVOY_SUMMARY_CRON: "0 3 * * *" });
    await waitRunning(d);
    const st = await cli(home, ["daemon", "status", "--json"], { TZ: "UTC" });
    const summaries = JSON.parse(st.stdout).jobs.find((x: { name: string }) => x.name === "summaries");
    const next = new Date(summaries.nextRun);
    // 03:00 in Tokyo (UTC+9, no DST) is 18:00 UTC.
    expect([next.getUTCHours(), next.getUTCMinutes()]).toEqual([18, 0]);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect(next.getTime() - Date.now()).toBeLessThanOrEqual(86_400_000);
    d.proc.kill("SIGTERM");
    expect(await d.exited).toBe(0);
  });

  test("status says when the config changed since the daemon started (it runs on the one it loaded)", async () => {
    const home = tempHome();
    writeFileSync(join(home, "config.toml"), '[summary]\ncron = "*/15 * * * *"\n');
    const d = startDaemon(home);
    await waitRunning(d);
    const status = async () => JSON.parse((await cli(home, ["daemon", "status", "--json"])).stdout);
    expect(await status()).toMatchObject({ configChanged: false, configProblem: null });
    expect((await cli(home, ["daemon", "status"])).stdout).not.toContain("config:");

    // A budget set to cap spend is not applied until a restart: status says so.
    writeFileSync(join(home, "config.toml"), '[summary]\ncron = "*/15 * * * *"\ndaily_token_budget = 1000\n');
    expect(await status()).toMatchObject({ configChanged: true, configProblem: null });
    expect((await cli(home, ["daemon", "status"])).stdout).toContain("config: changed since the daemon started");

    writeFileSync(join(home, "config.toml"), "[summary\n");
    const broken = await status();
    expect(broken.configChanged).toBe(true);
    expect(broken.configProblem).toContain("config.toml");
    d.proc.kill("SIGTERM");
    expect(await d.exited).toBe(0);
  });

  test("status on a home that never ran a daemon", async () => {
    const home = tempHome();
    const st = await cli(home, ["daemon", "status", "--json"]);
    expect(st.code).toBe(1);
    expect(JSON.parse(st.stdout)).toMatchObject({ running: false, pid: null, jobs: [] });
  });
});

describe("signals", () => {
  for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    test(`${sig}: exit 0 and a stop line in the log`, async () => {
      const home = tempHome();
      const d = startDaemon(home);
      await waitRunning(d);
      const t = performance.now();
      d.proc.kill(sig);
      expect(await d.exited).toBe(0);
      expect(performance.now() - t).toBeLessThan(5000);
      const log = logText(home);
      expect(log).toContain(`daemon.stopping signal=${sig}`);
      expect(log).toContain("daemon.stop ");
    });
  }
});

describe("config", () => {
  test("an invalid cron pattern exits 2 naming the key and the file", async () => {
    const home = tempHome();
    writeFileSync(join(home, "config.toml"), '[daemon]\nmaintenance_cron = "61 * * * *"\n');
    const d = startDaemon(home);
    expect(await d.exited).toBe(2);
    expect(d.stderr()).toContain(
      `config error in ${join(home, "config.toml")}: daemon.maintenance_cron: invalid cron pattern "61 * * * *"`,
    );
    const check = await cli(home, ["config", "check"]);
    expect(check.code).toBe(2);
    expect(check.stderr).toContain("daemon.maintenance_cron");
  });

  test("a cron pattern that never fires (a date no month has) exits 2 naming the key", async () => {
    const home = tempHome();
    writeFileSync(join(home, "config.toml"), '[summary]\ncron = "0 0 31 4 *"\n');
    const d = startDaemon(home);
    expect(await d.exited).toBe(2);
    expect(d.stderr().trim()).toBe(
      `memvoy: config error in ${join(home, "config.toml")}: summary.cron: invalid cron pattern "0 0 31 4 *": it never fires (no date matches it)`,
    );
    const check = await cli(home, ["config", "check"], { MEMVOY_SUMMARY_CRON: "0 0 30 2 *" });
    expect(check.code).toBe(2);
    expect(check.stderr).toContain("summary.cron");
  });

  test("crontab's nicknames are cron patterns: config check takes them and daemon status shows their next run", async () => {
    const home = tempHome();
    writeFileSync(join(home, "config.toml"), '[summary]\ncron = "@hourly"\n[daemon]\nmaintenance_cron = "@Daily"\n');
    const check = await cli(home, ["config", "check"]);
    expect(check.code, check.stderr).toBe(0);
    const d = startDaemon(home);
    await waitRunning(d);
    const st = JSON.parse((await cli(home, ["daemon", "status", "--json"])).stdout);
    const next = (name: string) => st.jobs.find((j: { name: string }) => j.name === name).nextRun as string;
    expect(next("summaries")).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:00:00\.000000000Z$/);
    expect(next("maintenance")).toBeTruthy();
    d.proc.kill("SIGTERM");
    expect(await d.exited).toBe(0);
    const refused = await cli(home, ["config", "check"], { MEMVOY_SUMMARY_CRON: "@reboot" });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("summary.cron (MEMVOY_SUMMARY_CRON): not a cron pattern");
  });

  test("every invalid cron pattern is named at once, each with where it came from", async () => {
    const home = tempHome();
    const file = join(home, "config.toml");
    writeFileSync(file, '[summary]\ncron = "61 * * * *"\n[daemon]\nmaintenance_cron = "0 25 * * *"\n');
    const check = await cli(home, ["config", "check"], { MEMVOY_DAEMON_SWEEP_CRON: "0 0 30 2 *" });
    expect(check.code).toBe(2);
    expect(check.stderr.trim()).toBe(
      `memvoy: config error in ${file} + MEMVOY_* environment: ` +
        'summary.cron: invalid cron pattern "61 * * * *": CronPattern: Invalid value for minute: 61; ' +
        'daemon.sweep_cron (MEMVOY_DAEMON_SWEEP_CRON): invalid cron pattern "0 0 30 2 *": it never fires (no date matches it); ' +
        'daemon.maintenance_cron: invalid cron pattern "0 25 * * *": CronPattern: Invalid value for hour: 25',
    );
    const d = startDaemon(home, { MEMVOY_DAEMON_SWEEP_CRON: "0 0 30 2 *" });
    expect(await d.exited).toBe(2);
    expect(d.stderr().trim()).toBe(check.stderr.trim());
  });

  test("a history.db it cannot open ends the daemon at once, exit 1, naming the file", async () => {
    const home = tempHome();
    mkdirSync(join(home, ".store"));
    writeFileSync(join(home, ".store", "history.db"), "this is not an SQLite database at all, not even close\n");
    const d = startDaemon(home);
    // A generous bound: the daemon used to report the error and then stay up (deaf to SIGTERM) for good.
    const code = await Promise.race([d.exited, Bun.sleep(30_000).then(() => "still running")]);
    expect(code).toBe(1);
    expect(d.stderr()).toContain(`${join(home, ".store", "history.db")} is broken`);
  });

  test("a MEMVOY_* variable the daemon does not read is named in its log, with the one it most likely means", async () => {
    const home = tempHome();
    const d = startDaemon(home, { MEMVOY_SUMARY_CRON: "* * * * * *" });
    await waitRunning(d);
    await waitFor(() => logText(home).includes("daemon.ignored_variable"), 5000, "the warning in daemon.log");
    expect(logText(home)).toContain(
      'WARN  daemon.ignored_variable note="MEMVOY_SUMARY_CRON is set, but memvoy reads no such variable and ignores it: did you mean MEMVOY_SUMMARY_CRON?"',
    );
    d.proc.kill("SIGTERM");
    expect(await d.exited).toBe(0);
  });

  test("--verbose mirrors the log to stderr", async () => {
    const home = tempHome();
    const d = startDaemon(home, {}, ["--verbose"]);
    await waitRunning(d);
    await waitFor(() => d.stderr().includes("daemon.start"), 5000, "the start line on stderr");
    d.proc.kill("SIGTERM");
    expect(await d.exited).toBe(0);
  });
});

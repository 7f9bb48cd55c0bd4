import { afterAll, describe, expect, test } from "bun:test";
import { parseTimeBound, resolveFilter } from "../../src/shared/time-filter.ts";
import { cli, openTemp, removeTempHomes, tempHome } from "../fixture/home.ts";
import { config } from "../fixture/semantic-home.ts";

afterAll(removeTempHomes);

const DAY = 86_400_000_000_000n;
const ns = (iso: string) => BigInt(Date.parse(iso)) * 1_000_000n;

describe("time bounds", () => {
  const now = ns("2026-06-15T12:00:00Z");
  test("relative forms count back from now", () => {
    expect(parseTimeBound("3d", "since", now)).toBe(now - 3n * DAY);
    expect(parseTimeBound("2w", "since", now)).toBe(now - 14n * DAY);
    expect(parseTimeBound("12h", "until", now)).toBe(now - 12n * 3_600_000_000_000n);
    expect(parseTimeBound("30m", "since", now)).toBe(now - 30n * 60_000_000_000n);
  });
  test("since is the start of the time given; until includes the whole of it, to the precision it is written in", () => {
    const sec = 1_000_000_000n;
    expect(parseTimeBound("2026-05-01T09:30:00Z", "since", now)).toBe(ns("2026-05-01T09:30:00Z"));
    expect(parseTimeBound("2026-05-01T09:30:00+02:00", "until", now)).toBe(ns("2026-05-01T07:30:00Z") + sec);
    expect(parseTimeBound("2026-05-01T09:30:00.25Z", "until", now)).toBe(ns("2026-05-01T09:30:00.25Z") + 10_000_000n);
    expect(parseTimeBound("2026-05-01T09:30:00.123456789Z", "until", now)).toBe(
      ns("2026-05-01T09:30:00.123Z") + 456_790n,
    );
    const local = BigInt(new Date(2026, 4, 1, 9, 30, 15).getTime()) * 1_000_000n;
    expect(parseTimeBound("2026-05-01 09:30:15", "until", now)).toBe(local + sec);
    expect(parseTimeBound("2026-05-01 09:30", "until", now)).toBe(local - 15n * sec + 60n * sec);
    expect(parseTimeBound("2026-05-01Z", "until", now)).toBe(ns("2026-05-02T00:00:00Z"));
    expect(parseTimeBound(String(ns("2026-05-01T09:30:00Z") / sec), "until", now)).toBe(ns("2026-05-01T09:30:01Z"));
    expect(resolveFilter({ until: Number(ns("2026-05-01T09:30:00Z") / 1_000_000n) }, now).until).toBe(
      ns("2026-05-01T09:30:00Z") + 1_000_000n,
    );
  });

  test("history --until with a message's time as history shows it keeps that message", async () => {
    const home = tempHome();
    const at = "2026-03-02T10:20:30.456789123Z";
    for (const [content, when] of [
      ["shown at that second", at],
      ["a second later", "2026-03-02T10:20:31.000000001Z"],
    ])
      expect((await cli(["add", "s", "--role", "user", "--content", content!, "--at", when!], { home })).code).toBe(0);
    const shown = (await cli(["history", "s"], { home })).stdout.split("\n")[0]!;
    const time = /^\[(\S+ \S+) ·/.exec(shown)![1]!;
    for (const cmd of [
      ["history", "s"],
      ["search", "shown", "--session", "s"],
    ]) {
      const r = await cli([...cmd, "--until", time, "--json"], { home });
      expect(r.code).toBe(0);
      const out = JSON.parse(r.stdout);
      expect((out.messages ?? out.hits).map((m: { content: string }) => m.content)).toEqual(["shown at that second"]);
    }
  });
  test("a date alone: since its start, until its end", () => {
    expect(parseTimeBound("2026-05-01", "since", now)).toBe(BigInt(new Date(2026, 4, 1).getTime()) * 1_000_000n);
    expect(parseTimeBound("2026-05-01", "until", now)).toBe(BigInt(new Date(2026, 4, 2).getTime()) * 1_000_000n);
  });
  test("a bound beyond the times memvoy stores is the first or last of them (64-bit nanoseconds)", () => {
    const max = 9_223_372_036_854_775_807n;
    expect(parseTimeBound("1000y", "since", now)).toBe(0n);
    expect(parseTimeBound("999999w", "until", now)).toBe(0n);
    expect(parseTimeBound("2262-04-11T23:47:16.854775807Z", "until", now)).toBe(max);
    expect(resolveFilter({ since: -5n, until: max }, now)).toEqual({ since: 0n, until: max });
    // A date written out, as for "from the start" or "to the end": moved to the edge, not refused as no time.
    expect(parseTimeBound("1900-01-01", "since", now)).toBe(0n);
    expect(parseTimeBound("1969-12-31T23:59:59Z", "until", now)).toBe(0n);
    expect(parseTimeBound("2300-01-01", "until", now)).toBe(max);
    expect(resolveFilter({ since: -86_400 }, now)).toEqual({ since: 0n });
  });
  test("today, yesterday and now in any case, as 3D is 3d", () => {
    for (const kind of ["since", "until"] as const) {
      expect(parseTimeBound("Today", kind, now)).toBe(parseTimeBound("today", kind, now));
      expect(parseTimeBound("YESTERDAY", kind, now)).toBe(parseTimeBound("yesterday", kind, now));
      expect(parseTimeBound(" Now ", kind, now)).toBe(parseTimeBound("now", kind, now));
    }
    expect(parseTimeBound("3D", "since", now)).toBe(now - 3n * DAY);
  });
  test("1M is refused, not read as one minute (it reads as a month to many); 1m and 1MIN are minutes", () => {
    for (const text of ["1M", "6M", "1 M ago"])
      expect(() => parseTimeBound(text, "since", now)).toThrow(/invalid --since/);
    expect(parseTimeBound("1m", "since", now)).toBe(now - 60_000_000_000n);
    expect(parseTimeBound("1MIN", "since", now)).toBe(now - 60_000_000_000n);
  });
  test("nonsense is refused with one clear line", () => {
    for (const bad of ["", "soon", "3 fortnights", "2026-13-01", "12"])
      expect(() => parseTimeBound(bad, "since", now)).toThrow(/invalid --since/);
    expect(() => resolveFilter({ role: "system" }, now)).toThrow(/invalid role "system"/);
  });
  test("--since not before --until is refused as a swapped pair; two dates before 1970 are not", () => {
    for (const [since, until] of [
      ["2026-05-07", "2026-05-01"],
      ["1d", "2d"],
      ["2026-05-01T10:00:00Z", "2026-05-01T09:59:59Z"],
    ])
      expect(() => resolveFilter({ since, until }, now)).toThrow(
        `--since ${JSON.stringify(since)} is not before --until ${JSON.stringify(until)}: no message can fall between them (are the two swapped?)`,
      );
    expect(resolveFilter({ since: "2026-05-01", until: "2026-05-01" }, now).until).toBe(
      BigInt(new Date(2026, 4, 2).getTime()) * 1_000_000n,
    );
    expect(resolveFilter({ since: "now", until: "now" }, now)).toEqual({ since: now, until: now + 1n });
    expect(resolveFilter({ since: "1900-01-01", until: "1950-01-01" }, now)).toEqual({ since: 0n, until: 0n });
  });
  test("with a range the narrower lower bound wins", () => {
    expect(resolveFilter({ range: "7d", since: "30d" }, now).since).toBe(now - 7n * DAY);
    expect(resolveFilter({ range: "30d", since: "2d" }, now).since).toBe(now - 2n * DAY);
    expect(resolveFilter({ range: "all", since: "2d" }, now).since).toBe(now - 2n * DAY);
  });
});

describe("filters in the library and the CLI", () => {
  const seed = [
    { role: "user" as const, content: "deploy plan drafted", sendAt: "2026-01-05T10:00:00Z", sender: "ann" },
    { role: "assistant" as const, content: "deploy plan reviewed", sendAt: "2026-02-05T10:00:00Z", sender: "bot" },
    { role: "user" as const, content: "deploy plan approved", sendAt: "2026-03-05T10:00:00Z", sender: "bob" },
    { role: "assistant" as const, content: "deploy plan shipped", sendAt: "2026-04-05T10:00:00Z", sender: "bot" },
  ];

  test("search and history honour since, until, role and sender on every match mode", async () => {
    const { api } = openTemp();
    api.add("s", seed);
    api.add("t", [{ role: "user", content: "deploy plan elsewhere", sendAt: "2026-02-10T00:00:00Z", sender: "ann" }]);
    const contents = (hits: { message: { content: string } }[]) => hits.map((h) => h.message.content).sort();
    for (const match of ["keyword", "semantic", "hybrid"] as const) {
      const between = await api.search({ query: "deploy plan", match, since: "2026-02-01", until: "2026-03-05" });
      expect(contents(between.hits)).toEqual(["deploy plan approved", "deploy plan elsewhere", "deploy plan reviewed"]);
      const bot = await api.search({ query: "deploy plan", match, sender: "bot" });
      expect(contents(bot.hits)).toEqual(["deploy plan reviewed", "deploy plan shipped"]);
      const users = await api.search({ query: "deploy plan", match, role: "user", session: "s" });
      expect(contents(users.hits)).toEqual(["deploy plan approved", "deploy plan drafted"]);
    }
    expect(api.history("s", { since: "2026-03-01T00:00:00Z" }).map((m) => m.content)).toEqual([
      "deploy plan approved",
      "deploy plan shipped",
    ]);
    expect(api.history("s", { role: "assistant", last: 1 }).map((m) => m.content)).toEqual(["deploy plan shipped"]);
    expect(api.history("s", { until: "2026-01-05T10:00:00Z" }).map((m) => m.content)).toEqual(["deploy plan drafted"]);
    expect(api.history("s", { sender: "nobody" })).toEqual([]);
    await api.flushEmbeddings();
    api.close();
  });

  test("a sender matches whatever its ASCII case, in the archive and recent tiers, search and history alike", async () => {
    const { home, api } = openTemp({ config: config({ limits: { max_history_bytes: 4096 } }) });
    api.add("s", { role: "user", content: "zanzibar rollout archived", sender: "Alice" });
    for (let i = 0; i < 30; i++)
      api.add("s", { role: i % 2 ? "user" : "assistant", content: `filler ${i} ${"blah ".repeat(20)}`, sender: "bob" });
    api.add("s", { role: "user", content: "zanzibar rollout recent", sender: "alice" });
    api.add("s", { role: "user", content: "zanzibar rollout other", sender: "Älice" });
    await api.drainEmbeddings();
    const sources = (hits: { source: string; message: { content: string } }[]) =>
      hits.map((h) => `${h.message.content} ${h.source}`).sort();
    const kw = await api.search({ query: "zanzibar rollout", match: "keyword", sender: "ALICE" });
    expect(sources(kw.hits)).toEqual(["zanzibar rollout archived archive", "zanzibar rollout recent recent"]);
    for (const match of ["semantic", "hybrid"] as const) {
      const hits = (await api.search({ query: "zanzibar rollout", match, sender: "aLiCe" })).hits;
      expect(hits.map((h) => h.message.sender)).toContain("alice");
      expect(hits.every((h) => h.message.sender?.toLowerCase() === "alice")).toBe(true);
    }
    const senders = (list: { sender?: string }[]) => list.map((m) => m.sender);
    expect(senders(api.history("s", { sender: "ALICE", all: true }))).toEqual(["Alice", "alice"]);
    expect(senders(api.history("s", { sender: "älice" }))).toEqual([]);
    api.close();
    const r = await cli(["history", "s", "--all", "--json", "--sender", "alice"], { home });
    expect(JSON.parse(r.stdout).messages.map((m: { sender: string }) => m.sender)).toEqual(["Alice", "alice"]);
    const found = await cli(["search", "zanzibar", "--json", "--local", "--sender", "ALICE"], { home });
    expect(
      JSON.parse(found.stdout)
        .hits.map((h: { sender: string }) => h.sender)
        .sort(),
    ).toEqual(["Alice", "alice"]);
  });

  test("CLI: zone-less dates are local time, relative forms, narrower bound wins, bad values exit 2", async () => {
    const home = tempHome();
    const env = { TZ: "Asia/Taipei" };
    // 23:30 local on Jan 31 is 15:30 UTC: only a local reading of --since 2026-01-31 keeps it.
    const lines = [
      { role: "user", content: "budget note one", sendAt: "2026-01-30T15:30:00Z" },
      { role: "user", content: "budget note two", sendAt: "2026-01-31T15:30:00Z", sender: "ann" },
    ];
    expect((await cli(["add", "s"], { home, env, stdin: lines.map((l) => JSON.stringify(l)).join("\n") })).code).toBe(
      0,
    );
    expect((await cli(["add", "s", "--role", "assistant", "--content", "budget note three"], { home, env })).code).toBe(
      0,
    );
    const search = async (...args: string[]) => {
      const r = await cli(["search", "budget", "--json", ...args], { home, env });
      expect(r.code).toBe(0);
      return JSON.parse(r.stdout)
        .hits.map((h: { content: string }) => h.content)
        .sort();
    };
    expect(await search("--since", "2026-01-31")).toEqual(["budget note three", "budget note two"]);
    expect(await search("--until", "2026-01-30")).toEqual(["budget note one"]);
    expect(await search("--until", "2026-01-31")).toEqual(["budget note one", "budget note two"]);
    expect(await search("--since", "2026-01-31 23:00", "--until", "2026-01-31 23:59")).toEqual(["budget note two"]);
    expect(await search("--since", "1d")).toEqual(["budget note three"]);
    // Further back than 1970 (beyond 64-bit nanoseconds from 1677 on): every message, in each match mode.
    for (const match of ["keyword", "semantic", "hybrid"]) {
      expect(await search("--since", "1000y", "--match", match)).toHaveLength(3);
      expect(await search("--until", "1000y", "--match", match)).toEqual([]);
    }
    expect(await search("--range", "1y", "--since", "2w")).toEqual(["budget note three"]);
    expect(await search("--role", "assistant")).toEqual(["budget note three"]);
    expect(await search("--sender", "ann")).toEqual(["budget note two"]);
    const hist = await cli(["history", "s", "--json", "--until", "2026-02-01", "--sender", "ann"], { home, env });
    expect(JSON.parse(hist.stdout).messages.map((m: { content: string }) => m.content)).toEqual(["budget note two"]);
    for (const args of [
      ["search", "budget", "--since", "lately"],
      ["history", "s", "--until", "2026-02-30"],
      ["search", "x", "--role", "robot"],
      ["search", "budget", "--since", "2026-02-01", "--until", "2026-01-01"],
      ["history", "s", "--since", "1d", "--until", "2d"],
    ]) {
      const r = await cli(args, { home, env });
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
    }
  });
  test("CLI: export takes --since and --until as search and history do (relative forms, a date alone as until, an instant)", async () => {
    const home = tempHome();
    const env = { TZ: "Asia/Taipei" };
    const lines = [
      { role: "user", content: "export note one", sendAt: "2026-01-30T15:30:00Z" },
      { role: "user", content: "export note two", sendAt: "2026-01-31T15:30:00Z" },
    ];
    await cli(["add", "s"], { home, env, stdin: lines.map((l) => JSON.stringify(l)).join("\n") });
    await cli(["add", "s", "--role", "assistant", "--content", "export note three"], { home, env });
    const exported = async (...bounds: string[]) => {
      const r = await cli(["export", "--all", ...bounds], { home, env });
      expect(r.code).toBe(0);
      return r.stdout
        .split("\n")
        .filter((l) => l.includes('"type":"message"'))
        .map((l) => JSON.parse(l).content);
    };
    const history = async (...bounds: string[]) =>
      JSON.parse((await cli(["history", "s", "--all", "--json", ...bounds], { home, env })).stdout).messages.map(
        (m: { content: string }) => m.content,
      );
    for (const bounds of [
      ["--until", "2026-01-30"],
      ["--until", "2026-01-31T15:30:00Z"],
      ["--since", "2026-01-31", "--until", "2026-01-31"],
      ["--since", "3d"],
      ["--since", "12h"],
      ["--since", "2w"],
      ["--since", "today"],
      ["--until", "yesterday"],
    ]) {
      expect({ bounds, exported: await exported(...bounds) }).toEqual({ bounds, exported: await history(...bounds) });
    }
    expect(await exported("--until", "2026-01-30")).toEqual(["export note one"]);
    expect(await exported("--until", "2026-01-31T15:30:00Z")).toEqual(["export note one", "export note two"]);
    expect(await exported("--since", "3d")).toEqual(["export note three"]);
    const bad = await cli(["export", "--all", "--since", "lately"], { home, env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('invalid --since "lately"');
  });
});

describe("bounds from the wire", () => {
  test("numbers are unix time by their digits; bigint is UTC nanoseconds", () => {
    const now = ns("2026-06-15T12:00:00Z");
    const t = ns("2026-05-01T00:00:00Z");
    expect(resolveFilter({ since: Number(t / 1_000_000_000n) }, now).since).toBe(t);
    expect(resolveFilter({ since: Number(t / 1_000_000n) }, now).since).toBe(t);
    expect(resolveFilter({ since: t, until: t }, now)).toEqual({ since: t, until: t + 1n });
    expect(() => resolveFilter({ since: {} as never }, now)).toThrow(/invalid since/);
  });
});

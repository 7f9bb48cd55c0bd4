// `memvoy search` asks the daemon running for the home (same program, same config) and prints its answer as
// it prints its own; with no such daemon, or one that cannot answer, it searches in its own process.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { cpSync, existsSync, readFileSync, renameSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { routeFor } from "../../src/app/api/routes.ts";
import { openMemory } from "../../src/app/open-memory.ts";
import { tryLockFile } from "../../src/shared/file-lock.ts";
import { buildBinaryOnce, makeTempDir, removeTempDirs, runBinary, spawnBinaryDaemon } from "../fixture/binary.ts";
import { cleanup, cli, startDaemon, tempHome, waitFor, waitRunning } from "../fixture/daemon-process.ts";

// Real daemons (one from source, one compiled) and many CLI processes.
setDefaultTimeout(120_000);

afterAll(() => {
  cleanup();
  removeTempDirs();
});

function fill(home: string): void {
  const api = openMemory({ home, env: {}, drain: "off" });
  api.add("ops", [
    { role: "user", content: "where do the deploy keys live" },
    { role: "assistant", content: "in the vault under ops/deploy, next to the kubernetes secrets" },
  ]);
  api.add("infra", [
    { role: "user", content: "the kubernetes rollout failed again", sender: "ana" },
    { role: "assistant", content: "roll back to the last green build, then look at the kubernetes events" },
  ]);
  api.add("notes", [
    { role: "user", content: "the cluster upgrade notes from January", sendAt: "2026-01-02T15:00:00Z" },
  ]);
  api.close();
}

/** Scores hold a recency term that moves with the clock between two runs: compared to 6 places. */
const settled = (json: string) =>
  JSON.stringify(JSON.parse(json), (k, v) => (k === "score" && typeof v === "number" ? v.toFixed(6) : v));

const SEARCHES = [
  ["kubernetes"],
  ["kubernetes", "--session", "infra"],
  ["deploy keys", "--range", "7d", "--limit", "1"],
  ["kubernetes", "--since", "2000-01-01"],
  ["kubernetes", "--since", "3d", "--until", "2100-01-01"],
  ["kubernetes", "--until", "today"],
  ["upgrade notes", "--until", "2026-01-02"],
  ["upgrade notes", "--since", "2026-01-02T15:00:00Z", "--until", "2026-01-02T15:00:00Z"],
  ["upgrade notes", "--until", "2026-01-02T14:59:59.999999999Z"],
  ["nothing like this anywhere"],
];

let home: string;
let stampedFile: Record<string, unknown>;

/** Error records, for `errors search` (the builtin embedder: no network). */
async function fillErrors(home: string): Promise<void> {
  const api = openMemory({ home, env: {}, drain: "off" });
  try {
    await api.recordError({
      tool: "git",
      error: "git@github.com: Permission denied (publickey).",
      fix: "ssh-add ~/.ssh/id_ed25519",
      cause: "the ssh agent had no key loaded",
    });
    await api.recordError({ tool: "npm", error: "npm ERR! code EACCES permission denied", fix: "fix the cache owner" });
    await api.recordError({ tool: "docker", error: "no space left on device", fix: "docker system prune" });
  } finally {
    api.close();
  }
}

/** An error search's answer without what each search changes (its hit count, last hit and expiry). */
const unstamped = (json: string) =>
  JSON.stringify(JSON.parse(json), (k, v) =>
    k === "hits" && typeof v === "number" ? undefined : k === "lastHitAt" || k === "expiresAt" ? undefined : v,
  );
const unstampedText = (text: string) => text.replace(/ · \d+ hits? · last hit [^·]+· expires [^·]+·/g, " ·");

beforeAll(async () => {
  home = tempHome();
  fill(home);
  await fillErrors(home);
  const d = startDaemon(home);
  await waitRunning(d);
  const httpFile = join(home, "http.json");
  await waitFor(() => existsSync(httpFile), 15_000, "http.json");
  stampedFile = JSON.parse(readFileSync(httpFile, "utf8"));
  expect(typeof stampedFile.stamp).toBe("string");
});

test("with the daemon running, its answers are the local ones, in JSON and for a person", async () => {
  // Semantic and hybrid searches once the daemon has embedded every message.
  await waitFor(
    () => {
      const a = openMemory({ home, env: {}, drain: "off" });
      try {
        return a.embeddingBacklog().queued === 0;
      } finally {
        a.close();
      }
    },
    60_000,
    "the embedding queue to drain",
  );
  const semantic = [
    ["where are the keys kept", "--match", "semantic"],
    ["kubernetes rollout", "--match", "hybrid", "--limit", "3"],
  ];
  for (const args of [...SEARCHES, ...semantic]) {
    const asked = await cli(home, ["search", ...args, "--json"]);
    const local = await cli(home, ["search", ...args, "--json", "--local"]);
    expect(asked.code).toBe(0);
    expect(settled(asked.stdout)).toBe(settled(local.stdout));
    const text = await cli(home, ["search", ...args]);
    const textLocal = await cli(home, ["search", ...args, "--local"]);
    expect(text.stdout).toBe(textLocal.stdout);
    expect(text.stderr).toBe(textLocal.stderr);
  }
});

test("errors search: with the daemon running, its answers are the local ones, in JSON and for a person", async () => {
  for (const args of [
    ["permission denied"],
    ["ssh key refused by github", "--tool", "git"],
    ["disk full", "--tool", "npm", "--other-tools", "--limit", "2"],
    ["nothing like this"],
  ]) {
    const asked = await cli(home, ["errors", "search", ...args, "--json"]);
    const local = await cli(home, ["errors", "search", ...args, "--json", "--local"]);
    expect(asked.code).toBe(0);
    expect(unstamped(asked.stdout)).toBe(unstamped(local.stdout));
    const text = await cli(home, ["errors", "search", ...args]);
    const textLocal = await cli(home, ["errors", "search", ...args, "--local"]);
    expect(unstampedText(text.stdout)).toBe(unstampedText(textLocal.stdout));
    expect(text.stderr).toBe(textLocal.stderr);
  }
  // Each answer restarts the records' TTL and counts a hit, whichever process gave it.
  const shown = await cli(home, ["errors", "search", "permission denied", "--json", "--local"]);
  expect(JSON.parse(shown.stdout).hits[0].hits).toBeGreaterThanOrEqual(4);
});

test("errors record: the daemon stores the record this process would, and a second record of it merges", async () => {
  const args = [
    "errors",
    "record",
    "--tool",
    "kubectl",
    "--error",
    "error: You must be logged in to the server (Unauthorized) token=ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "--fix",
    "kubectl config use-context prod, then log in again",
    "--keywords",
    "auth,login",
    "--keywords",
    "context",
  ];
  const asked = await cli(home, [...args, "--json"]);
  expect(asked.code).toBe(0);
  const r = JSON.parse(asked.stdout);
  expect(r.merged).toBe(false);
  expect(r.redacted.length).toBeGreaterThan(0);
  expect(r.record.error).not.toContain("ghp_abcdefghijklmnopqrstuvwxyz0123456789");
  expect(r.record.keywords).toEqual(["auth", "login", "context"]);
  const shown = await cli(home, ["errors", "show", r.record.id, "--json"]);
  expect(unstamped(shown.stdout)).toBe(unstamped(JSON.stringify(r.record)));
  // The same error again, from this process: it merges into the daemon's record.
  const again = await cli(home, [...args, "--local", "--json"]);
  expect(JSON.parse(again.stdout)).toMatchObject({ merged: true, record: { id: r.record.id, occurrences: 2 } });
  const text = await cli(home, args);
  expect(text.stdout).toContain(`updated ${r.record.id} (kubectl, resolved): the same error, seen 3 times`);
  expect(text.stderr).toContain("memvoy: redacted before storing:");
});

test("errors rm: the daemon removes the record, by a prefix of its id; an id it does not know is refused here", async () => {
  const recorded = await cli(home, [
    "errors",
    "record",
    "--tool",
    "terraform",
    "--error",
    "Error acquiring the state lock: ConditionalCheckFailedException",
    "--fix",
    "terraform force-unlock LOCK_ID",
    "--local",
    "--json",
  ]);
  const id = JSON.parse(recorded.stdout).record.id as string;
  const removed = await cli(home, ["errors", "rm", id.slice(0, 6)]);
  expect(removed).toMatchObject({ code: 0, stdout: `removed ${id} (terraform)\n`, stderr: "" });
  const shown = await cli(home, ["errors", "show", id]);
  expect(shown.code).not.toBe(0);
  const found = await cli(home, [
    "errors",
    "search",
    "state lock ConditionalCheckFailedException",
    "--json",
    "--local",
  ]);
  expect(JSON.parse(found.stdout).hits.map((h: { id: string }) => h.id)).not.toContain(id);
  // The daemon answers 404 for an id it does not know: this process then says so in the words of --local.
  const unknown = await cli(home, ["errors", "rm", "zzzzzzzz"]);
  const unknownLocal = await cli(home, ["errors", "rm", "zzzzzzzz", "--local"]);
  expect(unknown.code).toBe(unknownLocal.code);
  expect(unknown.code).not.toBe(0);
  expect(unknown.stderr).toBe(unknownLocal.stderr);
});

/** The lines of a process's memory map that map LanceDB's native module (from source: under node_modules). */
const lanceDbLines = (pid: number) =>
  readFileSync(`/proc/${pid}/maps`, "utf8")
    .split("\n")
    .filter((l) => l.includes("lancedb"));

test("memvoy mcp asks the daemon for semantic search and error memory, and maps no LanceDB itself", async () => {
  const { sdkStdio } = await import("../agents/mcp-client.ts");
  const mcp = (env: Record<string, string>) =>
    sdkStdio([process.execPath, join(import.meta.dir, "../../src/index.ts"), "mcp", "--home", home], env);
  type Call = { structuredContent?: { rows?: { id: string; session: string }[] }; isError?: boolean };
  const calls = (s: Awaited<ReturnType<typeof mcp>>) => async (name: string, args: Record<string, unknown>) =>
    (await s.client.callTool({ name, arguments: args })) as Call;
  // A time without a zone is the server's own (Tokyo, 9 hours ahead of the daemon's UTC): 23:00 there is before
  // the notes message (2026-01-02T15:00:00Z).
  const bounded = { mode: "search", query: "upgrade notes", match: "hybrid", until: "2026-01-02 23:00" };
  const server = await mcp({ TZ: "Asia/Tokyo" });
  let asked: Call;
  try {
    const call = calls(server);
    const semantic = await call("chat_history", { mode: "search", query: "kubernetes rollout", match: "semantic" });
    expect(semantic.isError).toBeUndefined();
    const local = JSON.parse(
      (await cli(home, ["search", "kubernetes rollout", "--match", "semantic", "--json", "--local"])).stdout,
    );
    expect(semantic.structuredContent!.rows!.map((r) => r.id)).toEqual(local.hits.map((h: { id: string }) => h.id));
    asked = await call("chat_history", bounded);
    expect(asked.structuredContent!.rows!.map((r) => r.session)).not.toContain("notes");
    // The CLI's forms: a date alone as until is the end of that day here; a relative form counts back from now.
    const dayEnd = await call("chat_history", { ...bounded, until: "2026-01-03" });
    expect(dayEnd.structuredContent!.rows!.map((r) => r.session)).toContain("notes");
    const recent = await call("chat_history", {
      ...bounded,
      query: "kubernetes rollout",
      until: undefined,
      since: "3d",
    });
    expect(recent.isError).toBeUndefined();
    expect(recent.structuredContent!.rows!.map((r) => r.session)).toContain("infra");
    const looked = await call("error_memory", { mode: "lookup", error: "ssh permission denied (publickey)" });
    expect(looked.isError).toBeUndefined();
    expect(JSON.stringify(looked.structuredContent)).toContain("ssh-add");
    const recorded = await call("error_memory", {
      mode: "record",
      tool: "terraform",
      error: "Error acquiring the state lock",
      fix: "terraform force-unlock",
    });
    expect(recorded.isError).toBeUndefined();
    expect(lanceDbLines(server.pid)).toEqual([]);
  } finally {
    await server.close();
  }
  // With no daemon of its config (another stamp), the same server searches in its own process: the same rows.
  const alone = await mcp({ TZ: "Asia/Tokyo", MEMVOY_ERROR_MEMORY_TTL_DAYS: "30" });
  try {
    const call = calls(alone);
    const r = await call("error_memory", { mode: "lookup", error: "ssh permission denied (publickey)" });
    expect(r.isError).toBeUndefined();
    const ids = (c: Call) => c.structuredContent!.rows!.map((row) => row.id);
    expect(ids(await call("chat_history", bounded))).toEqual(ids(asked));
    expect(lanceDbLines(alone.pid).length).toBeGreaterThan(0);
  } finally {
    await alone.close();
  }
});

interface Seen {
  method: string;
  path: string;
  authorization: string | null;
  body: unknown;
}

/** A stand-in daemon at the URL of http.json: it answers every search with an empty result of its own. */
async function withFakeDaemon(
  body: (seen: Seen[]) => Promise<void>,
  answer: (req: Request) => Response | Promise<Response> = () =>
    Response.json({
      query: "asked the daemon",
      hits: [],
      notIndexed: 0,
      reindexNeeded: false,
      notes: [],
      emptyReason: "answered by the stand-in",
    }),
): Promise<void> {
  const seen: Seen[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (req) => {
      const path = new URL(req.url).pathname;
      const body = await req.json().catch(() => null);
      seen.push({ method: req.method, path, authorization: req.headers.get("authorization"), body });
      return answer(req);
    },
  });
  const httpFile = join(home, "http.json");
  // The home's own daemon is paused meanwhile: running, it writes its http.json back within a second of finding
  // it written over (daemon-http.ts), and the commands would then ask it instead of the stand-in.
  const daemonPid = stampedFile.pid as number;
  process.kill(daemonPid, "SIGSTOP");
  writeFileSync(
    httpFile,
    JSON.stringify({ ...stampedFile, url: server.url.origin, port: server.port, pid: process.pid }),
    { mode: 0o600 },
  );
  try {
    await body(seen);
  } finally {
    server.stop(true);
    writeFileSync(httpFile, JSON.stringify(stampedFile), { mode: 0o600 });
    const ours = statSync(httpFile).ino;
    process.kill(daemonPid, "SIGCONT");
    // The daemon finds the file written over and writes its own back (a temp file, then a rename): waited for,
    // so that the next test meets no file of it half made (a copy of the home would trip over its temp file). It
    // looks each second, comparing the file's content with its own.
    await waitFor(() => statSync(httpFile).ino !== ours, 60_000, "the daemon's own http.json written back");
  }
}

const fromStandIn = (stdout: string) => JSON.parse(stdout).query === "asked the daemon";

test("a daemon of the same program and config answers, with its token; time bounds go as the instants they stand for here", async () => {
  await withFakeDaemon(async (seen) => {
    const r = await cli(home, ["search", "kubernetes", "--since", "2026-01-02", "--limit", "3", "--json"]);
    expect(r.code).toBe(0);
    expect(fromStandIn(r.stdout)).toBe(true);
    expect(seen[0]!.path).toBe(routeFor("search").path);
    expect(seen[0]!.authorization).toBe(`Bearer ${stampedFile.token}`);
    expect(seen[0]!.body).toEqual({ query: "kubernetes", since: "2026-01-02T00:00:00.000000000Z", limit: 3 });
    // A date alone as the upper bound is the end of that day; the daemon takes the instant as inclusive.
    await cli(home, ["search", "kubernetes", "--until", "2026-01-02", "--json"]);
    expect(seen[1]!.body).toEqual({ query: "kubernetes", until: "2026-01-02T23:59:59.999999999Z" });
    // A relative bound, counted back from this process's clock.
    const before = Date.now();
    await cli(home, ["search", "kubernetes", "--since", "2d", "--json"]);
    const since = Date.parse((seen[2]!.body as { since: string }).since);
    expect(Math.abs(since - (before - 2 * 86_400_000))).toBeLessThan(60_000);
    const text = await cli(home, ["search", "kubernetes"]);
    expect(text.stdout).toContain("answered by the stand-in");
  });
});

test("errors search asks a daemon of the same program and config with its token, and --local does not", async () => {
  const answer = () => Response.json({ tool: "git", hits: [], notEmbedded: 0, notes: ["answered by the stand-in"] });
  await withFakeDaemon(async (seen) => {
    const r = await cli(home, ["errors", "search", "denied", "--tool", "git", "--other-tools", "-n", "3", "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).notes).toEqual(["answered by the stand-in"]);
    expect(seen[0]!.path).toBe(routeFor("searchErrors").path);
    expect(seen[0]!.authorization).toBe(`Bearer ${stampedFile.token}`);
    expect(seen[0]!.body).toEqual({ query: "denied", tool: "git", limit: 3, otherTools: true });
    const text = await cli(home, ["errors", "search", "denied"]);
    expect(text.stderr).toBe("memvoy: answered by the stand-in\nmemvoy: no error record matches\n");
    const local = await cli(home, ["errors", "search", "denied", "--local", "--json"]);
    expect(JSON.parse(local.stdout).hits.length).toBeGreaterThan(0);
    expect(seen).toHaveLength(2);
  }, answer);
  // A daemon that refuses or fails the search leaves it to this process, which says what is wrong.
  await withFakeDaemon(
    async (seen) => {
      const bad = await cli(home, ["errors", "search", "denied", "--limit", "0"]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain("limit");
      expect(seen).toHaveLength(1);
    },
    () => Response.json({ error: { code: "X", message: "no" } }, { status: 400 }),
  );
});

/** An error record as a stand-in daemon answers with it. */
const standInRecord = (id: string) => ({
  id,
  tool: "make",
  error: "make: *** No rule to make target 'all'",
  cause: null,
  fix: "add the all target",
  outcome: "resolved",
  keywords: [],
  createdAt: "2026-01-01T00:00:00.000000000Z",
  updatedAt: "2026-01-01T00:00:00.000000000Z",
  lastHitAt: null,
  expiresAt: "2026-04-01T00:00:00.000000000Z",
  hits: 0,
  occurrences: 1,
  embedded: true,
});

test("errors record asks a daemon of the same program and config; --local, a refusal or a failure record here", async () => {
  const record = [
    "errors",
    "record",
    "--tool",
    "make",
    "--error",
    "make: *** No rule to make target 'all'",
    "--fix",
    "add the all target",
  ];
  const stored = {
    record: standInRecord("0000aaaa"),
    merged: false,
    redacted: [],
    notes: ["stored by the stand-in"],
  };
  await withFakeDaemon(
    async (seen) => {
      const r = await cli(home, [...record, "--outcome", "failed", "--json"]);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual(stored);
      expect(seen[0]!.path).toBe(routeFor("recordError").path);
      expect(seen[0]!.authorization).toBe(`Bearer ${stampedFile.token}`);
      expect(seen[0]!.body).toEqual({
        tool: "make",
        error: "make: *** No rule to make target 'all'",
        fix: "add the all target",
        outcome: "failed",
      });
      const text = await cli(home, record);
      expect(text.stdout).toBe("recorded 0000aaaa (make, resolved)\n");
      expect(text.stderr).toBe("memvoy: stored by the stand-in\n");
      const local = await cli(home, [...record, "--local", "--json"]);
      expect(JSON.parse(local.stdout).record.id).not.toBe("0000aaaa");
      expect(seen).toHaveLength(2);
    },
    () => Response.json(stored),
  );
  for (const status of [400, 500])
    await withFakeDaemon(
      async (seen) => {
        const r = await cli(home, [...record, "--json"]);
        expect(r.code).toBe(0);
        expect(seen).toHaveLength(1);
        expect(JSON.parse(r.stdout).record.id).not.toBe("0000aaaa");
      },
      () => Response.json({ error: { code: "X", message: "no" } }, { status }),
    );
});

test("errors rm asks a daemon of the same program and config to delete the record; --local and a refusal remove here", async () => {
  const removed = {
    removed: standInRecord("0000bbbb"),
    notes: ["removed by the stand-in"],
  };
  const local = async (tool: string) => {
    const r = await cli(home, [
      "errors",
      "record",
      "--tool",
      tool,
      "--error",
      `${tool}: failed`,
      "--fix",
      "retry",
      "--local",
      "--json",
    ]);
    return JSON.parse(r.stdout).record.id as string;
  };
  await withFakeDaemon(
    async (seen) => {
      const r = await cli(home, ["errors", "rm", "0000b/b", "--json"]);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual(removed);
      expect(seen[0]).toEqual({
        method: "DELETE",
        path: "/v1/errors/0000b%2Fb",
        authorization: `Bearer ${stampedFile.token}`,
        body: null,
      });
      const text = await cli(home, ["errors", "rm", "0000bbbb"]);
      expect(text.stdout).toBe("removed 0000bbbb (make)\n");
      expect(text.stderr).toBe("memvoy: removed by the stand-in\n");
      const id = await local("cmake");
      const here = await cli(home, ["errors", "rm", id, "--local"]);
      expect(here.stdout).toBe(`removed ${id} (cmake)\n`);
      expect(seen).toHaveLength(2);
    },
    () => Response.json(removed),
  );
  await withFakeDaemon(
    async (seen) => {
      const id = await local("ninja");
      const r = await cli(home, ["errors", "rm", id]);
      expect(r).toMatchObject({ code: 0, stdout: `removed ${id} (ninja)\n` });
      expect(seen).toHaveLength(1);
    },
    () => Response.json({ error: { code: "UnknownErrorIdError", message: "no" } }, { status: 404 }),
  );
});

test("--local, role and sender filters, and a bad time search here", async () => {
  await withFakeDaemon(async (seen) => {
    for (const extra of [["--local"], ["--role", "user"], ["--sender", "ana"]]) {
      const r = await cli(home, ["search", "kubernetes", ...extra, "--json"]);
      expect(r.code).toBe(0);
      expect(fromStandIn(r.stdout)).toBe(false);
      expect(JSON.parse(r.stdout).hits.length).toBeGreaterThan(0);
    }
    const bad = await cli(home, ["search", "kubernetes", "--since", "last tuesday"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("since");
    expect(seen).toHaveLength(0);
  });
});

test("a daemon that fails the search, or refuses it, leaves it to this process", async () => {
  for (const status of [500, 400]) {
    await withFakeDaemon(
      async (seen) => {
        const r = await cli(home, ["search", "kubernetes", "--json"]);
        expect(r.code).toBe(0);
        expect(seen).toHaveLength(1);
        expect(JSON.parse(r.stdout).hits.length).toBe(3);
        expect(r.stderr).toBe("");
      },
      () => Response.json({ error: { code: "X", message: "no" } }, { status }),
    );
  }
});

test("another config, a dead daemon, another program, a linked http.json: searched here", async () => {
  const httpFile = join(home, "http.json");
  const config = join(home, "config.toml");
  // Another config: the stamp differs.
  await withFakeDaemon(async (seen) => {
    writeFileSync(config, "[search]\nmin_score = 0.2\n");
    try {
      const r = await cli(home, ["search", "kubernetes", "--json"]);
      expect(fromStandIn(r.stdout)).toBe(false);
      // An environment override changes the config too.
      writeFileSync(config, "");
      const env = await cli(home, ["search", "kubernetes", "--json"], { MEMVOY_ERROR_MEMORY_TTL_DAYS: "30" });
      expect(fromStandIn(env.stdout)).toBe(false);
    } finally {
      writeFileSync(config, "");
    }
    expect(seen).toHaveLength(0);
    // The same config again (an empty file loads to the defaults, as no file does): asked.
    expect(fromStandIn((await cli(home, ["search", "kubernetes", "--json"])).stdout)).toBe(true);
  });
  // A daemon whose process is gone (its http.json left behind).
  await withFakeDaemon(async (seen) => {
    const f = JSON.parse(readFileSync(httpFile, "utf8"));
    writeFileSync(httpFile, JSON.stringify({ ...f, pid: 2 ** 22 + 1 }), { mode: 0o600 });
    expect(fromStandIn((await cli(home, ["search", "kubernetes", "--json"])).stdout)).toBe(false);
    expect(seen).toHaveLength(0);
  });
  // Another build (a stamp from elsewhere), and a file without a stamp (an older daemon).
  for (const stamp of ["another-build", undefined])
    await withFakeDaemon(async (seen) => {
      const f = JSON.parse(readFileSync(httpFile, "utf8"));
      writeFileSync(httpFile, JSON.stringify({ ...f, stamp }), { mode: 0o600 });
      expect(fromStandIn((await cli(home, ["search", "kubernetes", "--json"])).stdout)).toBe(false);
      expect(seen).toHaveLength(0);
    });
  // http.json as a link to a file that would be trusted: never followed.
  await withFakeDaemon(async (seen) => {
    const real = join(makeTempDir("memvoy-link-"), "http.json");
    renameSync(httpFile, real);
    symlinkSync(real, httpFile);
    expect(fromStandIn((await cli(home, ["search", "kubernetes", "--json"])).stdout)).toBe(false);
    expect(seen).toHaveLength(0);
  });
});

test("a copy of the home made while its daemon runs is searched and written in its own process", async () => {
  // cp -r of a running home (a backup restored, a copy to try something on) carries the daemon's http.json: same
  // program, same config, a live pid. That daemon serves the original home, not the copy.
  const copy = join(makeTempDir("memvoy-copy-"), "home");
  cpSync(home, copy, { recursive: true });
  expect(JSON.parse(readFileSync(join(copy, "http.json"), "utf8")).stamp).toBe(stampedFile.stamp);
  const api = openMemory({ home: copy, env: {}, drain: "off" });
  api.add("copied", [{ role: "user", content: "the zanzibar runbook lives only in the copy" }]);
  api.close();
  const found = await cli(copy, ["search", "zanzibar", "--json"]);
  expect(found.code).toBe(0);
  expect(JSON.parse(found.stdout).hits.map((h: { session: string }) => h.session)).toEqual(["copied"]);
  const record = [
    "errors",
    "record",
    "--tool",
    "tar",
    "--error",
    "tar: Unexpected EOF in archive",
    "--fix",
    "fetch again",
  ];
  expect((await cli(copy, [...record, "--json"])).code).toBe(0);
  const listed = (h: string) => cli(h, ["errors", "list", "--tool", "tar", "--json"]);
  expect(JSON.parse((await listed(copy)).stdout).records).toHaveLength(1);
  expect(JSON.parse((await listed(home)).stdout).records).toHaveLength(0);
});

test("compiled binary: its daemon answers the same hits as --local, and its stamp is the binary's own", async () => {
  const bin = await buildBinaryOnce();
  const h = makeTempDir("memvoy-home-");
  fill(h);
  const { proc: d, cwd } = spawnBinaryDaemon(bin, h);
  try {
    await waitFor(() => existsSync(join(h, "http.json")), 30_000, "http.json");
    const run = (args: string[]) => runBinary(bin, ["--home", h, ...args], { cwd });
    const asked = await run(["search", "kubernetes", "--json"]);
    const local = await run(["search", "kubernetes", "--json", "--local"]);
    expect(settled(asked.stdout)).toBe(settled(local.stdout));
    // The binary's own stamp: a stand-in at its http.json answers the binary's search.
    const f = JSON.parse(readFileSync(join(h, "http.json"), "utf8"));
    d.kill("SIGKILL");
    await d.exited;
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () =>
        Response.json({ query: "asked the daemon", hits: [], notIndexed: 0, reindexNeeded: false, notes: [] }),
    });
    // The stand-in holds the home's daemon lock, as a daemon does.
    const unlock = tryLockFile(join(h, "daemon.lock"))!;
    try {
      writeFileSync(join(h, "http.json"), JSON.stringify({ ...f, url: server.url.origin, pid: process.pid }));
      expect(fromStandIn((await run(["search", "kubernetes", "--json"])).stdout)).toBe(true);
    } finally {
      server.stop(true);
      unlock();
    }
  } finally {
    if (d.exitCode === null) d.kill(9);
  }
});

test("a daemon that does not answer in time: one line on stderr, and the search is left to this process", async () => {
  const { DAEMON_SEARCH, searchViaDaemon } = await import("../../src/cli/ask-daemon.ts");
  const { programStamp } = await import("../../src/config/program-stamp.ts");
  const { loadConfig } = await import("../../src/config/load.ts");
  const h = makeTempDir("memvoy-home-");
  // The stand-in holds the home's daemon lock, as a daemon does.
  const unlock = tryLockFile(join(h, "daemon.lock"))!;
  const config = loadConfig(join(h, "config.toml"), {});
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Promise<Response>(() => {}) });
  const httpFile = join(h, "http.json");
  writeFileSync(
    httpFile,
    JSON.stringify({
      url: server.url.origin,
      port: server.port,
      pid: process.pid,
      token: "t",
      stamp: programStamp(config),
    }),
    { mode: 0o600 },
  );
  const saved = DAEMON_SEARCH.timeoutMs;
  const write = process.stderr.write.bind(process.stderr);
  let said = "";
  process.stderr.write = ((chunk: string | Uint8Array) => {
    said += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  DAEMON_SEARCH.timeoutMs = 200;
  try {
    expect(
      await searchViaDaemon({ httpFile, daemonLock: join(h, "daemon.lock") }, config, { query: "kubernetes" }),
    ).toBeUndefined();
    expect(said).toBe("memvoy: the daemon did not answer within 0.2 s; searching here\n");
  } finally {
    process.stderr.write = write;
    DAEMON_SEARCH.timeoutMs = saved;
    server.stop(true);
    unlock();
  }
});

// reindex on a shared archive: with its HTTP embedder down it fails before dropping the vectors that embedder
// made; two at once on two hosts run one after the other, the second saying it waited and redoing nothing.
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSharedHome } from "../../src/app/shared/open-shared.ts";
import type { SharedHome } from "../../src/app/shared/shared-home.ts";
import { VECTOR_WRITE_JOB } from "../../src/storage/ports/lease-turn.ts";
import { openPgSharedArchive } from "../../src/storage/postgres/pg-shared-archive.ts";
import { cli, repoRoot, tempHome, waitFor } from "../fixture/home.ts";
import { okBody, startFakeEmbeddings, vectorFor, refuseOrEmbed } from "../fixture/fake-embeddings.ts";
import { describePostgres } from "../fixture/postgres-server.ts";
import { sharedBackend } from "../fixture/shared-backend.ts";

const describe = describePostgres();

describe("reindex on a shared archive", () => {
  const fake = startFakeEmbeddings([], { body: okBody(8) });
  const shared = sharedBackend({ beforeStop: () => fake.stop() });

  test("a refused key leaves the stored vectors in place", async () => {
    const env = { ...(await shared.env("reindex")), OPENAI_API_KEY: "sk-fake" };
    const home = tempHome();
    const embedder = `[embedder]\nprovider = "openai"\nbase_url = "${fake.url}"\nmodel = "fake-embed"\ndimensions = 8\n`;
    writeFileSync(join(home, "config.toml"), `${shared.s3.vectorsToml("reindex")}\n${embedder}`);
    const lines = ["the build is red", "the login test times out"].map((content) =>
      JSON.stringify({ role: "user", content }),
    );
    expect((await cli(["add", "s"], { home, env, stdin: lines.join("\n") })).code).toBe(0);
    const first = await cli(["reindex"], { home, env });
    expect(first.code, first.stderr).toBe(0);

    fake.fail({ status: 401, body: '{"error":{"message":"invalid key"}}' });
    const down = await cli(["reindex"], { home, env });
    expect(down.code).toBe(1);
    expect(down.stderr).toContain("rejected the API key (401)");

    fake.fail(undefined);
    const found = await cli(["search", "the login test times out", "--match", "semantic", "--json"], { home, env });
    expect(found.code, found.stderr).toBe(0);
    const r = JSON.parse(found.stdout) as { notIndexed: number; hits: { content: string }[] };
    expect(r.notIndexed).toBe(0);
    expect(r.hits[0]?.content).toBe("the login test times out");
  }, 120_000);

  test("messages the embedder always refuses do not hold the rebuild open: the rest is embedded and they are named", async () => {
    const refusing = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(r) {
        const req = (await r.json()) as { input: string[] };
        return refuseOrEmbed(req);
      },
    });
    try {
      const env = { ...(await shared.env("reindex_refused")), OPENAI_API_KEY: "sk-fake" };
      const home = tempHome();
      const url = `http://127.0.0.1:${refusing.port}`;
      const embedder = `[embedder]\nprovider = "openai"\nbase_url = "${url}"\nmodel = "fake-embed"\ndimensions = 8\nbatch_size = 1\n`;
      writeFileSync(join(home, "config.toml"), `${shared.s3.vectorsToml("reindex-refused")}\n${embedder}`);
      const contents = ["the build is red", "a POISON reply", "the login test times out"];
      const lines = contents.map((content) => JSON.stringify({ role: "user", content }));
      const added = await cli(["add", "s", "--json"], { home, env, stdin: lines.join("\n") });
      expect(added.code, added.stderr).toBe(0);
      const poison = (JSON.parse(added.stdout) as { ids: string[] }).ids[1]!;

      const first = await cli(["reindex", "--json"], { home, env });
      expect(first.code, first.stderr).toBe(1);
      const report = JSON.parse(first.stdout) as { embedded: number; remaining: number; error: string | null };
      expect(report).toMatchObject({ embedded: 2, remaining: 1, error: null });
      expect((JSON.parse(first.stdout) as { refused: { id: string }[] }).refused.map((m) => m.id)).toEqual([poison]);
      const again = await cli(["reindex"], { home, env });
      expect(again.stderr).not.toContain("resuming");
      expect(again.stderr).toContain(`${poison} in session s: openai embeddings`);

      const found = await cli(["search", "the login test times out", "--match", "semantic", "--json"], { home, env });
      expect(found.code, found.stderr).toBe(0);
      const r = JSON.parse(found.stdout) as { notIndexed: number; notes: string[]; hits: { content: string }[] };
      expect(r.notIndexed).toBe(1);
      expect(r.notes.join(" ")).toContain("1 message is not indexed: the embedder refused it");
      expect(r.hits[0]?.content).toBe("the login test times out");
    } finally {
      refusing.stop(true);
    }
  }, 120_000);

  test("an error record the embedder refuses holds back no other and does not hold the rebuild open", async () => {
    const sent: string[] = [];
    const refusing = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(r) {
        const req = (await r.json()) as { input: string[] };
        sent.push(...req.input);
        return refuseOrEmbed(req);
      },
    });
    try {
      const env = { ...(await shared.env("reindex_refused_errors")), OPENAI_API_KEY: "sk-fake" };
      const home = tempHome();
      const url = `http://127.0.0.1:${refusing.port}`;
      const embedder = `[embedder]\nprovider = "openai"\nbase_url = "${url}"\nmodel = "fake-embed"\ndimensions = 8\n`;
      writeFileSync(join(home, "config.toml"), `${shared.s3.vectorsToml("reindex-refused-errors")}\n${embedder}`);
      const record = (tool: string, error: string) =>
        cli(["errors", "record", "--json", "--tool", tool, "--error", error, "--fix", "fix it"], { home, env });
      const bad = await record("npm", "npm ERR! POISON missing script");
      expect(bad.code, bad.stderr).toBe(0);
      const out = JSON.parse(bad.stdout) as { record: { id: string; embedded: boolean }; notes: string[] };
      expect(out.notes.join(" ")).toContain("recorded without a vector for now");
      const badId = out.record;
      expect(badId.embedded).toBe(false);
      expect((await record("git", "fatal: not a git repository")).code).toBe(0);

      sent.length = 0;
      const found = await cli(["errors", "search", "not a git repository", "--json"], { home, env });
      expect(found.code, found.stderr).toBe(0);
      expect(JSON.parse(found.stdout).notes.join(" ")).not.toContain("semantic lookup unavailable");
      expect(sent).toEqual(["not a git repository"]); // the refused record is not sent again

      const rebuilt = await cli(["reindex", "--json"], { home, env });
      expect(rebuilt.code, rebuilt.stderr).toBe(1);
      const report = JSON.parse(rebuilt.stdout) as { errorsEmbedded: number; errorsRefused: { id: string }[] };
      expect(report.errorsEmbedded).toBe(1);
      expect(report.errorsRefused.map((x) => x.id)).toEqual([badId.id]);
      const again = await cli(["reindex"], { home, env });
      expect(again.stderr).not.toContain("resuming");
      expect(again.stderr).toContain("the embedder refused 1 error record");
    } finally {
      refusing.stop(true);
    }
  }, 120_000);

  test("a reindex after the embedder changed rebuilds the error records' vectors too", async () => {
    const env = { ...(await shared.env("reindex_errors")), OPENAI_API_KEY: "sk-fake" };
    const home = tempHome();
    const embedder = (model: string) =>
      `[embedder]\nprovider = "openai"\nbase_url = "${fake.url}"\nmodel = "${model}"\ndimensions = 8\n`;
    writeFileSync(join(home, "config.toml"), `${shared.s3.vectorsToml("reindex-errors")}\n${embedder("fake-embed")}`);
    const rec = [
      "errors",
      "record",
      "--tool",
      "npm",
      "--error",
      "could not resolve the dependency tree",
      "--fix",
      "pin it",
    ];
    expect((await cli(rec, { home, env })).code).toBe(0);

    writeFileSync(join(home, "config.toml"), `${shared.s3.vectorsToml("reindex-errors")}\n${embedder("fake-embed-2")}`);
    const listed = await cli(["errors", "list", "--json"], { home, env });
    expect(JSON.parse(listed.stdout).records.map((x: { embedded: boolean }) => x.embedded)).toEqual([false]);
    const rebuilt = await cli(["reindex", "--json"], { home, env });
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    const report = JSON.parse(rebuilt.stdout) as { errorsEmbedded: number; dropped: string[] };
    expect(report.errorsEmbedded).toBe(1);
    expect(report.dropped).toContain("openai:fake-embed:8");
    const after = await cli(["errors", "list", "--json"], { home, env });
    expect(JSON.parse(after.stdout).records.map((x: { embedded: boolean }) => x.embedded)).toEqual([true]);
  }, 120_000);

  test("a second reindex on another host waits for the first, then finds the rebuild done", async () => {
    const gate = startGate();
    try {
      const { env, hostA, hostB } = await twoHosts("twice", gate.url);
      gate.hold();
      const before = gate.texts.length;
      const start = (home: string) => {
        const proc = Bun.spawn(["bun", join(repoRoot, "src/index.ts"), "--home", home, "reindex"], {
          cwd: tmpdir(),
          env: { PATH: process.env.PATH!, HOME: tmpdir(), TZ: "UTC", ...env },
          stdout: "pipe",
          stderr: "pipe",
        });
        const out = { stdout: "", stderr: "" };
        const reading = Promise.all([
          (async () => {
            for await (const c of proc.stdout) out.stdout += new TextDecoder().decode(c);
          })(),
          (async () => {
            for await (const c of proc.stderr) out.stderr += new TextDecoder().decode(c);
          })(),
        ]);
        return {
          out,
          done: async () => {
            const code = await proc.exited;
            await reading;
            return { code, ...out };
          },
        };
      };
      const first = start(hostA);
      await waitFor(() => gate.waiting() > 0, 60_000, "the first rebuild's call to the embedder");
      const second = start(hostB);
      await waitFor(() => second.out.stderr.includes("waiting for it to finish"), 60_000, "the waiting line");
      expect(second.out.stderr).toMatch(
        /^memvoy: another memvoy reindex is running on the shared archive \(.+:\d+#[0-9a-f]{8}\); waiting for it to finish\n$/,
      );
      gate.release();
      const [a, b] = await Promise.all([first.done(), second.done()]);
      expect(a.code, a.stderr).toBe(0);
      expect(a.stdout).toBe("openai:fake-embed:8: embedded 3 message(s)\n");
      expect(b.code, b.stderr).toBe(0);
      expect(b.stdout).toBe("openai:fake-embed:8: the other reindex rebuilt every vector; nothing was left to embed\n");
      expect(gate.texts.length - before).toBe(1 + 3); // the first's probe of the embedder and its batch; none of the second
    } finally {
      gate.stop();
    }
  }, 180_000);

  test("two memories in one process: the second reindex waits for the first", async () => {
    const gate = startGate();
    const opened: SharedHome[] = [];
    try {
      const { env, hostA, hostB } = await twoHosts("inprocess", gate.url);
      for (const home of [hostA, hostB]) opened.push(await openSharedHome({ home, env }));
      const [a, b] = opened as [SharedHome, SharedHome];
      gate.hold();
      const first = a.reindex();
      await waitFor(() => gate.waiting() > 0, 60_000, "the first rebuild's call to the embedder");
      let waited = false;
      const second = b.reindex({ onWait: () => (waited = true) });
      await waitFor(() => waited, 60_000, "the second rebuild waiting");
      gate.release();
      expect((await first).embedded).toBe(3);
      expect(await second).toMatchObject({ waited: true, embedded: 0, resumed: false });
    } finally {
      for (const h of opened) await h.close();
      gate.stop();
    }
  }, 180_000);

  test("an error recorded while this process's drain holds the shared vectors waits 5 s at most", async () => {
    const gate = startGate((input) => input.some((t) => t.includes("held in the drain")));
    let home: SharedHome | undefined;
    try {
      const { env, hostB } = await twoHosts("errwait", gate.url);
      home = await openSharedHome({ home: hostB, env });
      await home.add("s", { role: "user", content: "a message held in the drain" });
      gate.hold();
      const draining = home.ctx.vectors.drain(home.ctx.now);
      await waitFor(() => gate.waiting() > 0, 60_000, "the drain's call to the embedder");
      let recorded: Awaited<ReturnType<SharedHome["recordError"]>> | undefined;
      void home
        .recordError({ tool: "make", error: "missing separator", fix: "indent with tabs" })
        .then((r) => (recorded = r));
      await waitFor(() => recorded, 30_000, "the record");
      expect(recorded!.notes).toEqual([expect.stringContaining("recorded without a vector for now")]);
      gate.release();
      expect(await draining).toBe(1);
      const found = await home.searchErrors({ query: "missing separator" });
      expect(found.hits.map((h) => [h.record.fix, h.record.embedded])).toEqual([["indent with tabs", true]]);
    } finally {
      await home?.close();
      gate.stop();
    }
  }, 180_000);

  test("a rebuild that finds the shared vectors busy past its wait says nothing was rebuilt, exit 1", async () => {
    const url = await shared.pg.createDatabase("busy");
    const env = { ...shared.s3.env, MEMVOY_ARCHIVE_URL: url };
    const home = shared.home("busy");
    expect((await cli(["add", "s", "--role", "user", "--content", "a note"], { home, env })).code).toBe(0);
    const archive = await openPgSharedArchive(url);
    const other = await archive.acquireLease(VECTOR_WRITE_JOB, "*", "other-host:9", 120_000);
    try {
      const r = await cli(["reindex"], { home, env });
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain("nothing was rebuilt; run memvoy reindex again");
      expect(r.code).toBe(1);
      const pending = await cli(["reindex", "--pending"], { home, env });
      expect(pending.stdout).toBe("another process is embedding this home's queue; nothing to do\n");
      expect(pending.code).toBe(0);
    } finally {
      if (other) await archive.releaseLease(other);
      await archive.close();
    }
  }, 120_000);

  /** An embedder that holds its answers (to requests `holds` picks) while held, counting the texts it was asked. */
  function startGate(holds: (input: string[]) => boolean = () => true) {
    let held: PromiseWithResolvers<void> | undefined;
    let waiting = 0;
    const texts: string[] = [];
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        const { input } = (await req.json()) as { input: string[] };
        texts.push(...input);
        if (holds(input)) {
          waiting++;
          await held?.promise;
          waiting--;
        }
        return Response.json({
          object: "list",
          data: input.map((t, index) => ({ object: "embedding", index, embedding: vectorFor(t, 8) })),
          model: "fake",
          usage: { prompt_tokens: 1, total_tokens: 1 },
        });
      },
    });
    return {
      url: `http://127.0.0.1:${server.port}`,
      texts,
      waiting: () => waiting,
      hold: () => {
        held = Promise.withResolvers<void>();
      },
      release: () => {
        held?.resolve();
        held = undefined;
      },
      stop: () => {
        held?.resolve();
        server.stop(true);
      },
    };
  }

  /** Two homes on a fresh archive with the gate's embedder, three messages written and their vectors built. */
  async function twoHosts(name: string, embedderUrl: string) {
    const env = { ...(await shared.env(name)), OPENAI_API_KEY: "sk-fake" };
    const config = `${shared.s3.vectorsToml(name)}\n[embedder]\nprovider = "openai"\nbase_url = "${embedderUrl}"\nmodel = "fake-embed"\ndimensions = 8\n`;
    const [hostA, hostB] = [tempHome(), tempHome()];
    for (const home of [hostA, hostB]) writeFileSync(join(home, "config.toml"), config);
    const lines = ["the deploy failed", "the cache is cold", "retry the job"].map((content) =>
      JSON.stringify({ role: "user", content }),
    );
    expect((await cli(["add", "s", "--json"], { home: hostA, env, stdin: lines.join("\n") })).code).toBe(0);
    const settled = await cli(["reindex"], { home: hostA, env });
    expect(settled.code, settled.stderr).toBe(0);
    return { env, hostA, hostB };
  }
});

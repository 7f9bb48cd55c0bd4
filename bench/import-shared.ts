// `bun run bench import-shared`: `memvoy import` of the same Claude Code transcripts into an embedded home and
// into a shared home (PostgreSQL + S3 test server), through the whole import pipeline, interleaved file by
// file in one run: messages per second on each side and their ratio. --quick: 40 sessions.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openMemory } from "../src/app/open-memory.ts";
import { openSharedHome } from "../src/app/shared/open-shared.ts";
import { importSource } from "../src/import/run-import.ts";
import { sourceByName } from "../src/import/source-registry.ts";
import { postgresMissing, startPostgres } from "../test/fixture/postgres-server.ts";
import { startS3Server } from "../test/fixture/s3-server.ts";
import { sessionStream } from "./lib/corpus.ts";
import { emitRows, log, quick } from "./lib/report.ts";
import { fmtInt } from "./lib/stats.ts";

const SESSIONS = quick ? 40 : 200;
const TURNS = 100;
const T0 = Date.UTC(2026, 0, 1);

const missing = postgresMissing();
if (missing) {
  log(`import-shared: skipped: ${missing}`);
  emitRows([{ name: "import into a shared home against the embedded default", value: `skipped (${missing})` }]);
  process.exit(0);
}

const scratch = mkdtempSync(join(tmpdir(), "memvoy-bench-import-shared-"));
/** One Claude Code transcript per session, in its own projects folder so that each can be imported alone. */
function writeTranscripts(): string[] {
  const roots: string[] = [];
  for (let s = 0; s < SESSIONS; s++) {
    const root = join(scratch, "src", `s${s}`);
    const folder = join(root, "projects", "-home-dev-bench");
    mkdirSync(folder, { recursive: true });
    const id = `00000000-0000-4000-8000-${String(s).padStart(12, "0")}`;
    const say = sessionStream(s);
    let t = T0 + s * 3_600_000;
    let parent: string | null = null;
    const lines: string[] = [];
    for (let turn = 0; turn < TURNS * 2; turn++) {
      const uuid = `u-${s}-${turn}`;
      const user = turn % 2 === 0;
      const message = user
        ? { role: "user", content: say().content }
        : { id: `msg_${s}_${turn}`, role: "assistant", content: [{ type: "text", text: say().content }] };
      lines.push(
        JSON.stringify({
          type: user ? "user" : "assistant",
          sessionId: id,
          cwd: "/home/dev/bench",
          version: "2.1.3",
          uuid,
          parentUuid: parent,
          timestamp: new Date((t += 1500)).toISOString(),
          message,
        }),
      );
      parent = uuid;
    }
    writeFileSync(join(folder, `${id}.jsonl`), `${lines.join("\n")}\n`);
    roots.push(join(root, "projects"));
  }
  return roots;
}

const roots = writeTranscripts();
const [pg, s3] = await Promise.all([startPostgres(), startS3Server()]);
try {
  const sharedHome = join(scratch, "shared");
  mkdirSync(sharedHome);
  writeFileSync(join(sharedHome, "config.toml"), s3.vectorsToml("bench-import"));
  const env = { ...s3.env, MEMVOY_ARCHIVE_URL: await pg.createDatabase("bench_import_shared") };
  const embedded = openMemory({ home: join(scratch, "embedded"), env: {}, drain: "off" });
  const shared = await openSharedHome({ home: sharedHome, env });
  const sides = [
    { name: "embedded default", api: embedded, ms: 0, added: 0 },
    { name: "shared (PostgreSQL + S3)", api: shared, ms: 0, added: 0 },
  ];
  log(`import-shared: ${SESSIONS} Claude Code sessions x ${TURNS * 2} messages, interleaved file by file`);
  for (let i = 0; i < roots.length; i++) {
    // Alternate which side goes first, so that neither always runs on a warmer machine.
    for (const side of i % 2 === 0 ? sides : [...sides].reverse()) {
      const t = performance.now();
      const r = await importSource(side.api, sourceByName(side.api, "claude-code"), { paths: [roots[i]!] });
      side.ms += performance.now() - t;
      side.added += r.messages.added;
    }
    if ((i + 1) % 20 === 0) log(`  ${i + 1} / ${roots.length} sessions`);
  }
  embedded.close();
  await shared.close();
  const rate = (s: (typeof sides)[number]) => s.added / (s.ms / 1000);
  const [e, sh] = sides as [(typeof sides)[number], (typeof sides)[number]];
  const label = `memvoy import claude-code, ${fmtInt(e.added)} messages`;
  emitRows([
    { name: `${label}: embedded default`, value: `${fmtInt(rate(e))} msg/s` },
    {
      name: `${label}: shared (PostgreSQL, S3 test server)`,
      value: `${fmtInt(rate(sh))} msg/s (${(rate(e) / rate(sh)).toFixed(1)}x slower)`,
    },
  ]);
} finally {
  await Promise.all([pg.stop(), s3.stop()]);
  rmSync(scratch, { recursive: true, force: true });
}

// memvoy stats [--json]: sessions, messages and bytes per tier, vectors, error records, disk use, tokens spent.
import { bool } from "../args.ts";
import { withAnyHome, type CommandSpec } from "../command.ts";
import { bold, dim, printJson, println } from "../output.ts";

export const usage = `
Usage: memvoy stats [--json]

What the home holds, read without loading the vector store:
  sessions       how many sessions exist
  window         messages in history.json (tier 1) and the files' size
  semantic       message vectors (tier 2) and messages still waiting for one; vectors another
                 embedder made (after [embedder] changed) are not counted: they need memvoy reindex
  archive        every message ever written (tier 3): count and text bytes
  errors         live error-memory records
  disk           space on disk (allocated, as du counts it) of sessions/, history.db (with WAL)
                 and the vector store (.store/lance, with its relevance statistics in
                 .store/relevance)
  tokens         LLM calls and tokens spent (summaries and the decision model)

On a shared archive ([archive] url or MEMVOY_ARCHIVE_URL), every figure but one is the
shared memory's, the same on every host: sessions, tiers and tokens from PostgreSQL,
vectors counted in the shared store. window bytes are the recent tier's text, disk
archive is the database's size on its server, and disk sessions is this host's own
cache files (history.json, summary.json, .summary_cursor). --json adds "shared" and
"local", naming which figure is which.
`;

const bytes = (n: number) =>
  n < 1024
    ? `${n} B`
    : n < 1024 ** 2
      ? `${(n / 1024).toFixed(1)} KiB`
      : n < 1024 ** 3
        ? `${(n / 1024 ** 2).toFixed(1)} MiB`
        : `${(n / 1024 ** 3).toFixed(2)} GiB`;
const count = (n: number) => n.toLocaleString("en-US");

const spec: CommandSpec = { name: "stats", usage, positionals: [], createsNoHome: true };

export function run(argv: readonly string[]): Promise<number> {
  return withAnyHome(spec, argv, async (api, p) => {
    const s = await api.stats();
    if (bool(p, "json")) {
      printJson(s);
      return 0;
    }
    const row = (label: string, value: string, note = "") =>
      println(`${label.padEnd(10)} ${value}${note ? "  " + dim(note) : ""}`);
    const shared = "shared" in s ? s : undefined;
    for (const n of shared?.notes ?? []) process.stderr.write(`memvoy: ${n}\n`);
    println(bold(`memvoy stats for ${s.home}`));
    if (shared) println(dim(`shared archive ${shared.shared.archive} · vectors ${shared.shared.vectors}`));
    row("sessions", count(s.sessions));
    row(
      "window",
      `${count(s.tiers.window.messages)} messages, ${bytes(s.tiers.window.bytes)}`,
      shared ? "the recent tier's text" : "history.json",
    );
    const sem = s.tiers.semantic;
    row(
      "semantic",
      `${count(sem.vectors)} vectors, ${count(sem.pending)} pending`,
      sem.stale > 0
        ? `${count(sem.stale)} recent messages have no vector from the configured embedder: run memvoy reindex`
        : sem.reindexNeeded
          ? "some vectors come from another embedder: run memvoy reindex"
          : "",
    );
    row(
      "archive",
      `${count(s.tiers.archive.messages)} messages, ${bytes(s.tiers.archive.bytes)} of text`,
      `${count(s.tiers.archive.archivedOnly)} only in the archive`,
    );
    row("errors", `${count(s.errors.records)} records`);
    row(
      "disk",
      `${bytes(s.disk.total)}`,
      shared
        ? `this host's caches ${bytes(s.disk.sessions)} (${count(shared.local.sessionCaches)} sessions) · PostgreSQL ${bytes(s.disk.archive)} · vectors in the object store, not measured`
        : `sessions ${bytes(s.disk.sessions)} · history.db ${bytes(s.disk.archive)} · vectors ${bytes(s.disk.vectors)}`,
    );
    row("tokens", `${count(s.tokens.input)} in, ${count(s.tokens.output)} out, ${count(s.tokens.calls)} calls`);
    for (const u of s.tokens.byPurpose)
      println(
        dim(
          `           ${u.purpose} · ${u.model}: ${count(u.inputTokens)} in, ${count(u.outputTokens)} out, ${count(u.calls)} calls`,
        ),
      );
    return 0;
  });
}

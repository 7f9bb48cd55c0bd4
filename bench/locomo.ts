// Retrieval quality on LoCoMo: bun bench/locomo.ts [--data PATH] [--json] [--limit K]
// Each conversation goes into its own session through HomeMemory.add (one message per turn, sender = the
// speaker, sendAt from the session date); each category 1-4 question is searched in that session; a
// question scores the share of its evidence turns among the top K hits (expanded context not counted).
// Precision: each question is also run against the session of a different conversation (off-topic: mean
// hits, share with none), and a seeded set of nonsense queries against every session (share with none).
// Recall is reported for the dev split and for its two halves (conversations 1-3 tune, 4-6 report).
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { openMemory } from "../src/app/open-memory.ts";
import type { MatchMode } from "../src/lib.ts";
import { emitRows } from "./lib/report.ts";
import { BuiltinEmbedder } from "../src/embed/builtin/builtin-embedder.ts";
import type { Embedder } from "../src/embed/embedder.ts";
import { validateConfig } from "../src/config/load.ts";

/** A builtin variant; `local: false` also turns off the previous-message context the drain mixes in. */
async function candidateEmbedder(name: string): Promise<Embedder> {
  const mixes: Record<string, { words: number; grams: number }> = {
    hash: { words: 0, grams: 1 },
    glove: { words: 1, grams: 0 },
    mix: { words: 1, grams: 0.35 },
    "mix-nocontext": { words: 1, grams: 0.35 },
  };
  const mix = mixes[name];
  if (!mix) throw new Error(`unknown --candidate ${name}: use ${Object.keys(mixes).join(", ")}`);
  const e = await BuiltinEmbedder.variant(mix);
  return {
    id: `candidate:${name}:${e.dim}`,
    dim: e.dim,
    local: name !== "mix-nocontext",
    embed: (t, s) => e.embed(t, s),
  };
}

const { values } = parseArgs({
  options: {
    // The dataset's license keeps it out of the repository: it is read where the workspace keeps it, or from
    // MEMVOY_LOCOMO_DATA (a checkout elsewhere).
    data: {
      type: "string",
      default: process.env.MEMVOY_LOCOMO_DATA || resolve(import.meta.dir, "../../shared/bench/locomo/locomo-dev.json"),
    },
    json: { type: "boolean", default: false },
    limit: { type: "string", default: "10" },
    // bench/run.ts flags: --quick scores the first conversation only; --fresh has nothing to rebuild here.
    quick: { type: "boolean", default: false },
    // Builtin embedder candidates (how it was chosen): hash | glove | mix | mix-nocontext; default: as configured.
    candidate: { type: "string" },
    fresh: { type: "boolean", default: false },
    // [search] min_score for this run (default: the embedder's default).
    "min-score": { type: "string" },
    nonsense: { type: "string", default: "100" },
  },
});
const K = Number(values.limit);
const MODES: MatchMode[] = ["keyword", "semantic", "hybrid"];

interface Turn {
  speaker: string;
  dia_id: string;
  text: string;
}
interface Sample {
  sample_id: string;
  conversation: Record<string, unknown> & { speaker_a: string; speaker_b: string };
  qa: { question: string; evidence: string[]; category: number }[];
}

const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];

/** "1:56 pm on 8 May, 2023" -> UTC ns. */
export function parseLocomoDate(s: string): bigint {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/i.exec(s);
  if (!m) throw new Error(`unrecognised LoCoMo date ${JSON.stringify(s)}`);
  let h = Number(m[1]) % 12;
  if (m[3]!.toLowerCase() === "pm") h += 12;
  const month = MONTHS.indexOf(m[5]!.toLowerCase());
  return BigInt(Date.UTC(Number(m[6]), month, Number(m[4]), h, Number(m[2]))) * 1_000_000n;
}

function sessions(c: Sample["conversation"]): { date: bigint; turns: Turn[] }[] {
  const keys = Object.keys(c)
    .filter((k) => /^session_\d+$/.test(k))
    .sort((a, b) => Number(a.split("_")[1]) - Number(b.split("_")[1]));
  return keys.map((k) => ({ date: parseLocomoDate(String(c[`${k}_date_time`])), turns: c[k] as Turn[] }));
}

if (!existsSync(values.data!)) {
  // A row that says so (as rg's absence does): the run goes on, and its table shows what was not measured.
  const why = `skipped: no data at ${values.data} (--data or MEMVOY_LOCOMO_DATA; see ../shared/bench/locomo/README.md)`;
  process.stderr.write(`bench/locomo: ${why}\n`);
  if (values.json) process.stdout.write(JSON.stringify({ skipped: why }) + "\n");
  else emitRows([{ name: `LoCoMo dev split, recall@${K}`, value: why }]);
  process.exit(0);
}

const samples = ((await Bun.file(values.data!).json()) as Sample[]).slice(0, values.quick ? 1 : undefined);
const sums: Record<string, number> = { keyword: 0, semantic: 0, hybrid: 0 };
let n = 0;
const half = Math.ceil(samples.length / 2);
const halves = [0, 1].map(() => ({ n: 0, sums: { keyword: 0, semantic: 0, hybrid: 0 } as Record<string, number> }));
const offTopic = {
  n: 0,
  hits: { keyword: 0, semantic: 0, hybrid: 0 } as Record<string, number>,
  none: { keyword: 0, semantic: 0, hybrid: 0 } as Record<string, number>,
};
const nonsenseNone = { n: 0, none: { keyword: 0, semantic: 0, hybrid: 0 } as Record<string, number> };
const NONSENSE = nonsenseQueries(Number(values.nonsense), 16);
const config =
  values["min-score"] !== undefined
    ? validateConfig({ search: { min_score: Number(values["min-score"]) } }, "bench config")
    : undefined;

/** Seeded nonsense: random pairs of unrelated words and keyboard mashes. */
function nonsenseQueries(count: number, seed: number): string[] {
  let x = seed >>> 0;
  const rnd = () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const WORDS = (
    "xyzzy plugh quasar tundra walrus zeppelin kumquat marimba obsidian gazebo trombone nebula fjord cactus " +
    "abacus lemur sprocket wombat paprika glacier hammock igloo jigsaw kayak lantern mongoose nectar origami pelican quiver " +
    "rhubarb saffron tapioca ukulele vortex windmill yodel zircon anvil bobsled carburetor dulcimer escarpment flamingo " +
    "gargoyle harpoon isotope jackal kelp lichen mandolin narwhal oboe periscope quartz raccoon sextant tarantula"
  ).split(" ");
  const KEYS = "qwertyuiopasdfghjklzxcvbnm";
  const out: string[] = [];
  for (let i = 0; out.length < count; i++) {
    if (i % 2 === 0) out.push(`${WORDS[Math.floor(rnd() * WORDS.length)]} ${WORDS[Math.floor(rnd() * WORDS.length)]}`);
    else {
      let w = "";
      const len = 5 + Math.floor(rnd() * 8);
      for (let j = 0; j < len; j++) w += KEYS[Math.floor(rnd() * KEYS.length)];
      out.push(w);
    }
  }
  return out;
}
const started = performance.now();
for (const [si, s] of samples.entries()) {
  const part = halves[si < half ? 0 : 1]!;
  const home = mkdtempSync(join(tmpdir(), "memvoy-locomo-"));
  const embedder = values.candidate ? await candidateEmbedder(values.candidate) : undefined;
  const api = openMemory({ home, env: {}, drain: "off", embedder, config });
  try {
    const session = s.sample_id.replace(/[^A-Za-z0-9._-]/g, "_");
    const idToDia = new Map<string, string>();
    for (const sess of sessions(s.conversation)) {
      const messages = sess.turns.map((t, i) => ({
        role: t.speaker === s.conversation.speaker_a ? ("user" as const) : ("assistant" as const),
        content: t.text,
        sender: t.speaker,
        sendAt: (sess.date + BigInt(i) * 1_000_000_000n).toString(),
      }));
      const { ids } = api.add(session, messages);
      ids.forEach((id, i) => idToDia.set(id, sess.turns[i]!.dia_id));
    }
    const drained = await api.drainEmbeddings({ wait: true });
    if (drained.error) throw new Error(`embedding failed: ${drained.error}`);
    for (const q of s.qa) {
      if (q.category < 1 || q.category > 4) continue;
      const evidence = new Set(q.evidence.flatMap((e) => e.split(/[;,\s]+/)).filter(Boolean));
      if (evidence.size === 0) continue;
      n++;
      part.n++;
      for (const match of MODES) {
        const r = await api.search({ query: q.question, session, match, limit: K, range: "all" });
        const found = new Set(r.hits.map((h) => idToDia.get(h.message.id)));
        let hit = 0;
        for (const e of evidence) if (found.has(e)) hit++;
        sums[match]! += hit / evidence.size;
        part.sums[match]! += hit / evidence.size;
      }
    }
    if (samples.length > 1) {
      const other = samples[(si + 1) % samples.length]!;
      for (const q of other.qa) {
        if (q.category < 1 || q.category > 4) continue;
        offTopic.n++;
        for (const match of MODES) {
          const r = await api.search({ query: q.question, session, match, limit: K, range: "all" });
          offTopic.hits[match]! += r.hits.length;
          if (r.hits.length === 0) offTopic.none[match]!++;
        }
      }
    }
    for (const query of NONSENSE) {
      nonsenseNone.n++;
      for (const match of MODES)
        if ((await api.search({ query, session, match, limit: K, range: "all" })).hits.length === 0)
          nonsenseNone.none[match]!++;
    }
  } finally {
    api.close();
    rmSync(home, { recursive: true, force: true });
  }
}

const round = (x: number) => Math.round((x / Math.max(n, 1)) * 1000) / 1000;
const recall = { keyword: round(sums.keyword!), semantic: round(sums.semantic!), hybrid: round(sums.hybrid!) };
const r3 = (x: number) => Math.round(x * 1000) / 1000;
const per = (o: Record<string, number>, d: number) =>
  Object.fromEntries(MODES.map((m) => [m, r3(o[m]! / Math.max(d, 1))]));
const extra = {
  minScore: values["min-score"] !== undefined ? Number(values["min-score"]) : "default",
  split: halves.map((h, i) => ({
    conversations: i === 0 ? `1-${half}` : `${half + 1}-${samples.length}`,
    n: h.n,
    [`recall@${K}`]: per(h.sums, h.n),
  })),
  offTopic: { n: offTopic.n, meanHits: per(offTopic.hits, offTopic.n), noHit: per(offTopic.none, offTopic.n) },
  nonsense: { queries: NONSENSE.length, runs: nonsenseNone.n, noHit: per(nonsenseNone.none, nonsenseNone.n) },
};
if (values.json) process.stdout.write(JSON.stringify({ n, [`recall@${K}`]: recall, ...extra }) + "\n");
else {
  console.log(
    `LoCoMo ${values.data}: ${samples.length} conversations, ${n} questions (categories 1-4), turn-level recall@${K}`,
  );
  for (const m of MODES) console.log(`  ${m.padEnd(8)} ${recall[m as keyof typeof recall].toFixed(3)}`);
  console.log(`  halves: ${JSON.stringify(extra.split)}`);
  console.log(
    `  off-topic (${offTopic.n} questions against another conversation): mean hits ${JSON.stringify(extra.offTopic.meanHits)}, no hit ${JSON.stringify(extra.offTopic.noHit)}`,
  );
  console.log(
    `  nonsense (${NONSENSE.length} seeded queries x ${samples.length} sessions): no hit ${JSON.stringify(extra.nonsense.noHit)}`,
  );
  console.log(`  (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  const row = (m: keyof typeof recall) => ({
    name: `LoCoMo dev recall@${K}, ${m}${values.quick ? " (1 conversation)" : ""}`,
    value: recall[m].toFixed(3),
  });
  emitRows([row("keyword"), row("semantic"), { ...row("hybrid"), target: ">= 0.65", ok: recall.hybrid >= 0.65 }]);
}

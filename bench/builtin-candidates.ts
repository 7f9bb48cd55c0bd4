// How the builtin embedder was chosen: bun bench/builtin-candidates.ts [--data PATH]
// Ranks every turn of each LoCoMo dev conversation by cosine to each category 1-4 question (in memory,
// no LanceDB), for three candidates: hashed n-grams alone, GloVe-derived word vectors alone, and the
// shipped mix; each with and without the previous-message context and the participant focus that the
// semantic search applies. Prints turn-level recall@10 and throughput.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { BuiltinEmbedder, type Mix } from "../src/embed/builtin/builtin-embedder.ts";
import { CONTEXT_WEIGHT } from "../src/memory/embedding/drain.ts";
import { queryFocus } from "../src/search/participants.ts";

const { values } = parseArgs({
  options: {
    data: {
      type: "string",
      default: process.env.MEMVOY_LOCOMO_DATA || resolve(import.meta.dir, "../../shared/bench/locomo/locomo-dev.json"),
    },
  },
});
if (!existsSync(values.data!)) {
  process.stderr.write(`bench/builtin-candidates: skipped, no data at ${values.data}\n`);
  process.exit(0);
}

interface Turn {
  speaker: string;
  dia_id: string;
  text: string;
}
const samples = (await Bun.file(values.data!).json()) as {
  conversation: Record<string, unknown>;
  qa: { question: string; evidence: string[]; category: number }[];
}[];
const convs = samples.map((s) => {
  const c = s.conversation;
  const keys = Object.keys(c)
    .filter((k) => /^session_\d+$/.test(k))
    .sort((a, b) => Number(a.split("_")[1]) - Number(b.split("_")[1]));
  const turns = keys.flatMap((k) => c[k] as Turn[]);
  const qa = s.qa.filter((q) => q.category >= 1 && q.category <= 4 && q.evidence.length > 0);
  return { turns, qa, speakers: [...new Set(turns.map((t) => t.speaker))] };
});

function mixPrevious(vs: Float32Array[]): Float32Array[] {
  return vs.map((v, i) => {
    if (i === 0) return v;
    const out = v.map((x, d) => x + CONTEXT_WEIGHT * vs[i - 1]![d]!);
    const n = Math.hypot(...out) || 1;
    return out.map((x) => x / n);
  });
}

async function recallAt10(e: BuiltinEmbedder, context: boolean, focus: boolean): Promise<number> {
  let sum = 0;
  let n = 0;
  for (const c of convs) {
    let docs = await e.embed(c.turns.map((t) => t.text));
    if (context) docs = mixPrevious(docs);
    for (const q of c.qa) {
      const f = focus ? queryFocus(q.question, c.speakers) : { text: q.question };
      const [qv] = await e.embed([f.text]);
      const scored = docs.map((d, i) => {
        let s = 0;
        for (let k = 0; k < d.length; k++) s += d[k]! * qv![k]!;
        if (f.sender !== undefined && c.turns[i]!.speaker !== f.sender) s *= 0.9;
        return { i, s };
      });
      scored.sort((a, b) => b.s - a.s);
      const top = new Set(scored.slice(0, 10).map((x) => c.turns[x.i]!.dia_id));
      const ev = new Set(q.evidence.flatMap((x) => x.split(/[;,\s]+/)).filter(Boolean));
      let hit = 0;
      for (const x of ev) if (top.has(x)) hit++;
      sum += hit / ev.size;
      n++;
    }
  }
  return sum / n;
}

const candidates: [string, Mix][] = [
  ["hashed char/word n-grams only", { words: 0, grams: 1 }],
  ["GloVe word vectors only (SIF)", { words: 1, grams: 0 }],
  ["mix: word vectors + 0.35 n-grams (shipped)", { words: 1, grams: 0.35 }],
];
const texts = convs.flatMap((c) => c.turns.map((t) => t.text));
console.log(
  `LoCoMo dev, ${convs.reduce((n, c) => n + c.qa.length, 0)} questions, semantic recall@10 (in-memory exact ranking)`,
);
console.log("candidate".padEnd(44), "plain  +context  +context+focus  msg/s");
for (const [name, mix] of candidates) {
  const e = await BuiltinEmbedder.variant(mix);
  const t = performance.now();
  await e.embed(texts);
  const rate = texts.length / ((performance.now() - t) / 1000);
  const r = [await recallAt10(e, false, false), await recallAt10(e, true, false), await recallAt10(e, true, true)];
  console.log(
    name.padEnd(44),
    r.map((x) => x.toFixed(3).padEnd(7)).join("  "),
    Math.round(rate).toLocaleString("en-US"),
  );
}

// Precision on a home about one topic: everyday questions (nothing to do with it) against the demo home (CI/CD,
// webhooks, vector stores; `memvoy demo`), and questions on its topic, each with the message that answers it.
// bun bench/off-topic-home.ts [--json]: mean hits and the share with none for the everyday questions, and how many
// topic questions find their message in the top 10, in semantic and hybrid mode (builtin embedder).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seedDemoHome } from "../src/app/demo/seed-demo.ts";
import { openMemory } from "../src/app/open-memory.ts";
import { emitRows, log, type BenchRow } from "./lib/report.ts";

/** Frozen: written before the rule they measure, none about software. */
const EVERYDAY = [
  "what should I cook for dinner",
  "my cat is sick",
  "how tall is mount everest",
  "any good movies lately",
  "planning a birthday party",
  "favourite football team",
  "where did we go on holiday last summer",
  "what's the weather like tomorrow",
  "recommend a good novel",
  "how do I bake sourdough bread",
  "when is my dentist appointment",
  "the kids want a puppy",
  "best beaches in portugal",
  "how long to boil an egg",
  "my knee hurts after running",
  "gift ideas for my mother",
  "what time does the bakery open",
  "learning to play the guitar",
  "who won the match yesterday",
  "wedding anniversary dinner reservation",
  "grow tomatoes on the balcony",
  "cheap flights to tokyo",
  "how to fold a fitted sheet",
  "the neighbours are too loud at night",
  "yoga classes near me",
  "did you feed the fish",
  "my phone screen cracked",
  "what's a good name for a dog",
  "painting the bedroom walls",
  "rainy sunday afternoon ideas",
];

/** Questions on the home's topic, in other words than its messages', and a piece of the message that answers. */
const ON_TOPIC: [string, string][] = [
  ["customers billed double", "webhook twice"],
  ["the same payment event arrives two times", "webhook twice"],
  ["speed up the slow pipeline", "Start with caching"],
  ["a bad schema change broke production", "bad migration"],
  ["how do we undo a broken release fast", "abort the rollout"],
  ["stop storing cloud keys in the repository settings", "Replace it with OIDC"],
  ["how many dimensions for the vectors", "384 to 768"],
  ["postgres or a dedicated vector database", "pgvector or a separate vector database"],
  ["checks to run right after shipping", "Three checks from outside the cluster"],
  ["no deploys at the end of the week", "Friday afternoons"],
];

const dir = mkdtempSync(join(tmpdir(), "memvoy-off-topic-"));
const rows: BenchRow[] = [];
try {
  const home = join(dir, "demo");
  await seedDemoHome(home);
  const api = openMemory({ home, env: {}, drain: "off" });
  try {
    for (const match of ["semantic", "hybrid"] as const) {
      let hits = 0;
      let none = 0;
      for (const query of EVERYDAY) {
        const n = (await api.search({ query, match, limit: 10 })).hits.length;
        hits += n;
        if (n === 0) none++;
      }
      let found = 0;
      for (const [query, answer] of ON_TOPIC) {
        const r = await api.search({ query, match, limit: 10 });
        if (r.hits.some((h) => h.message.content.includes(answer))) found++;
      }
      const mean = hits / EVERYDAY.length;
      log(
        `${match}: everyday mean hits ${mean.toFixed(2)}, none ${none}/${EVERYDAY.length}; topic ${found}/${ON_TOPIC.length}`,
      );
      rows.push(
        {
          name: `demo home, ${EVERYDAY.length} everyday questions, ${match}: mean hits; share with no hit`,
          value: `${mean.toFixed(2)}; ${((100 * none) / EVERYDAY.length).toFixed(0)}%`,
        },
        {
          name: `demo home, ${ON_TOPIC.length} questions on its topic in other words, ${match}: answer in the top 10`,
          value: `${found}/${ON_TOPIC.length}`,
        },
      );
    }
  } finally {
    api.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
emitRows(rows);

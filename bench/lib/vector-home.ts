// A temp home whose messages all have vectors (the builtin embedder), in 50 sessions: for the benches of the
// first ranked search (bench/tui.ts) and of semantic search from the command line (bench/cli-search.ts).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openMemory } from "../../src/app/open-memory.ts";
import { sessionMessages } from "./corpus.ts";

export async function vectorHome(messages: number, prefix = "memvoy-bench-vectors-"): Promise<string> {
  const home = mkdtempSync(join(tmpdir(), prefix));
  const api = openMemory({ home, env: {}, drain: "off" });
  const sessions = 50;
  for (let s = 0; s < sessions; s++)
    api.add(`s${String(s).padStart(4, "0")}`, sessionMessages(s, messages / sessions, 7));
  await api.drainEmbeddings();
  api.close();
  return home;
}

// Deleting from the terminal UI keeps the deletion promise of the CLI: a removal confirmed and followed at once by
// q still leaves the removed text in no file of the home, the vector store's older versions included.
import { afterEach, afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { openMemory } from "../../src/app/open-memory.ts";
import { VectorStore } from "../../src/storage/lance/vector-store.ts";
import { removeTempHomes, tempHome } from "../fixture/home.ts";
import type { TmuxSession } from "../fixture/tmux.ts";
import { startTui, T } from "../fixture/tui-home.ts";
import { filesHolding } from "../fixture/files-holding.ts";

let tui: TmuxSession | undefined;
afterEach(() => tui?.kill());
afterAll(removeTempHomes);

/**
 * Sessions `keep` and `leaky` with their vectors; the vector rows rewritten as an older memvoy wrote them, with the
 * message text, so a version of the vector table that still holds a removed row shows in the files.
 */
async function seed(home: string, secret: string): Promise<void> {
  const api = openMemory({ home, env: {}, drain: "off" });
  for (const s of ["keep", "leaky"])
    for (let i = 0; i < 20; i++)
      api.add(s, { role: i % 2 ? "assistant" : "user", content: `note ${i} on the deploy pipeline of ${s}` });
  api.add("leaky", { role: "user", content: `my password is ${secret}, pasted by mistake` });
  await api.drainEmbeddings();
  const messages = [...api.history("keep", { all: true }), ...api.history("leaky", { all: true })];
  api.close();
  const store = await VectorStore.open(join(home, ".store", "lance"));
  for (const info of await store.tables()) {
    const t = (await store.table(info.embedderId, 384))!;
    await t.upsert(messages.map((m) => ({ ...m, vector: new Float32Array(384).fill(0.1) })));
    t.close();
  }
  store.close();
}

test(
  "remove a session, then q at once: the terminal is given back and the removed text is in no file of the home",
  async () => {
    const home = tempHome("memvoy-tui-");
    const secret = "zqxjtuiremoval7h3k9";
    await seed(home, secret);
    expect(filesHolding(home, secret).length).toBeGreaterThan(0);
    tui = startTui(home);
    await tui.waitFor("leaky");
    tui.type("leaky");
    await tui.waitFor("filter: leaky");
    tui.keys("C-x");
    await tui.waitFor("Remove session leaky?");
    tui.keys("y", "Escape", "q"); // yes, then leave the filter and quit before the vectors are purged
    const { code, modes } = await tui.exited();
    expect(code).toBe(0);
    expect(modes).toEqual(["icanon", "echo"]);
    expect(filesHolding(home, secret)).toEqual([]);
    const api = openMemory({ home, env: {}, drain: "off" });
    try {
      expect(api.sessions().map((s) => s.id)).toEqual(["keep"]);
    } finally {
      api.close();
    }
  },
  T,
);

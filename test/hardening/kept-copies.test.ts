// The copies doctor --repair keeps aside (history.json.corrupt-*, history.db.broken-*) may hold a session's text:
// reset, rm and rm-message remove them with it and say so; nothing else does.
import { afterAll, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

/** Files of the home (home-relative) whose bytes hold `marker`. */
function holding(home: string, marker: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(dir, e.name)) : e.isFile() ? [join(dir, e.name)] : [],
    );
  return walk(home)
    .filter((f) => readFileSync(f, "latin1").includes(marker))
    .map((f) => f.slice(home.length + 1));
}

async function addPairs(home: string, session: string, marker: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 1; i <= 3; i++) {
    ids.push((await cli(["add", session, "--role", "user", "--content", `q${i} ${marker}`], { home })).stdout.trim());
    await cli(["add", session, "--role", "assistant", "--content", `a${i}`], { home });
  }
  return ids;
}

test("reset removes the history.json copy doctor --repair kept, and says so", async () => {
  const home = tempHome();
  await addPairs(home, "s", "CORRUPT-COPY-MARK");
  truncateSync(join(home, "sessions", "s", "history.json"), 150);
  expect((await cli(["doctor", "--repair"], { home })).code).toBe(0);
  expect(holding(home, "CORRUPT-COPY-MARK").some((f) => f.includes("history.json.corrupt-"))).toBe(true);
  const r = await cli(["reset", "s", "--json"], { home });
  expect(r.code).toBe(0);
  const json = JSON.parse(r.stdout);
  expect(json.keptCopiesRemoved).toHaveLength(1);
  expect(json.keptCopiesRemoved[0]).toStartWith("sessions/s/history.json.corrupt-");
  expect(r.stderr).toContain("also removed the copy doctor --repair had kept aside");
  expect(holding(home, "CORRUPT-COPY-MARK")).toEqual([]);
});

test("rm and rm-message remove the archive copies doctor --repair kept; a deletion with none says nothing more", async () => {
  const home = tempHome();
  await addPairs(home, "t", "BROKEN-DB-MARK");
  const ids = await addPairs(home, "u", "OTHER-SESSION-MARK");
  const db = join(home, ".store", "history.db");
  truncateSync(db, Math.floor(statSync(db).size / 2));
  expect((await cli(["doctor", "--repair", "--yes"], { home })).code).toBe(0);
  expect(holding(home, "BROKEN-DB-MARK").some((f) => f.includes(".broken-"))).toBe(true);
  const rmMessage = await cli(["rm-message", ids[0]!], { home });
  expect(rmMessage.code).toBe(0);
  expect(rmMessage.stderr).toMatch(/also removed \d+ copies doctor --repair had kept aside/);
  expect(holding(home, ".broken-")).toEqual([]);
  expect(readdirSync(join(home, ".store")).filter((f) => f.includes(".broken-"))).toEqual([]);
  const rm = await cli(["rm", "t", "--json"], { home });
  expect(rm.code).toBe(0);
  expect(JSON.parse(rm.stdout).keptCopiesRemoved).toBeUndefined();
  expect(rm.stderr).toBe("");
  expect(holding(home, "BROKEN-DB-MARK")).toEqual([]);
});

test("an Agenvoy archive the rebuild adopted, and a rebuild a kill left, count as kept copies", async () => {
  const home = tempHome();
  await addPairs(home, "v", "ADOPTED-MARK");
  const store = join(home, ".store");
  writeFileSync(join(store, "history.db.agenvoy-20261205T000000Z"), "ADOPTED-MARK from the Agenvoy archive");
  writeFileSync(join(store, "history.db.broken-20261205T000000Z.rebuilding"), "ADOPTED-MARK half rebuilt");
  const rm = await cli(["rm", "v", "--json"], { home });
  expect(rm.code).toBe(0);
  expect([...JSON.parse(rm.stdout).keptCopiesRemoved].sort()).toEqual([
    ".store/history.db.agenvoy-20261205T000000Z",
    ".store/history.db.broken-20261205T000000Z.rebuilding",
  ]);
  expect(holding(home, "ADOPTED-MARK")).toEqual([]);
});

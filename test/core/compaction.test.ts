// Where compaction cuts: the newest pair boundary at or below 80%, else the oldest above it; with no pair
// boundary the file waits until twice the limit, then is cut at 80% on a message boundary, and the add says so.
import { afterAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { compactionPlan } from "../../src/memory/compaction.ts";
import type { MessageRecord } from "../../src/shared/message.ts";
import { recordBytes } from "../../src/storage/history/history-file.ts";
import { openMemory } from "../../src/app/open-memory.ts";
import { openMemory as openLibrary } from "../../src/lib.ts";
import { cli, removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

const rec = (i: number, role: "user" | "assistant"): MessageRecord => ({
  id: `m${String(i).padStart(3, "0")}`,
  role,
  content: "x".repeat(200),
  sendAt: BigInt(i + 1) * 1_000_000_000n,
});
const bytes = (rs: readonly MessageRecord[]) => rs.reduce((n, r) => n + recordBytes(r), 0);

test("a run of user messages is not cut below twice the limit; at twice the limit it is cut at 80% with a note", () => {
  const one = recordBytes(rec(0, "user"));
  const max = one * 10;
  const users = Array.from({ length: 15 }, (_, i) => rec(i, "user"));
  expect(compactionPlan(users, bytes(users), max)).toEqual({ cut: 0 });
  const more = Array.from({ length: 20 }, (_, i) => rec(i, "user"));
  const plan = compactionPlan(more, bytes(more), max);
  expect(plan.cut).toBe(12); // 20 - 8 kept = 80% of the limit
  expect(plan.note).toContain("no user+assistant pair boundary");
});

test("a boundary at or below 80% wins; else the nearest one above 80%", () => {
  const one = recordBytes(rec(0, "user"));
  const max = one * 10;
  // u a u u u u u u u u u u: the only boundary is at index 2 (kept 10 > 8): taken, not a mid-run cut.
  const rs: MessageRecord[] = [
    rec(0, "user"),
    rec(1, "assistant"),
    ...Array.from({ length: 10 }, (_, i) => rec(i + 2, "user")),
  ];
  expect(compactionPlan(rs, bytes(rs), max)).toEqual({ cut: 2 });
  // pairs throughout: the first boundary from the byte point on.
  const pairs = Array.from({ length: 14 }, (_, i) => rec(i, i % 2 ? "assistant" : "user"));
  const plan = compactionPlan(pairs, bytes(pairs), max);
  expect(plan.note).toBeUndefined();
  expect(plan.cut % 2).toBe(0);
  expect(bytes(pairs.slice(plan.cut))).toBeLessThanOrEqual(max * 0.8);
  expect(bytes(pairs.slice(plan.cut - 2))).toBeGreaterThan(max * 0.8); // the most kept without passing 80%
});

test("end to end: user messages in a row are compacted only at twice the limit, and add says so on stderr", async () => {
  const home = tempHome();
  const env = { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" };
  const file = join(home, "sessions", "s", "history.json");
  const api = openMemory({ home, env, drain: "off" });
  let i = 0;
  // Up to just under twice the limit: nothing is cut (there is no pair boundary).
  for (; i === 0 || readFileSync(file).length + 700 < 8192; i++) {
    const r = api.add("s", { role: "user", content: `u${i} ${"y".repeat(300)}` });
    expect(r.compacted).toBe(0);
  }
  expect(readFileSync(file).length).toBeGreaterThan(4096);
  api.close();
  let noted = "";
  for (let k = 0; k < 3 && !noted; k++, i++) {
    const r = await cli(["add", "s", "--role", "user", "--content", `u${i} ${"y".repeat(300)}`], { home, env });
    expect(r.code).toBe(0);
    noted = r.stderr;
  }
  expect(noted).toMatch(/no user\+assistant pair boundary: \d+ oldest message\(s\) moved to the archive/);
  expect(readFileSync(file).length).toBeLessThanOrEqual(4096 * 0.8 + 400);
  const all = JSON.parse((await cli(["history", "s", "--all", "--json"], { home })).stdout);
  expect(all.messages).toHaveLength(i);
}, 60_000);

test("the library's add returns the note as compactionNote", async () => {
  const home = tempHome();
  const memory = openLibrary({ home, env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" } });
  let note: string | undefined;
  for (let i = 0; i < 40 && note === undefined; i++) {
    note = (await memory.add("s", { role: "user", content: `u${i} ${"y".repeat(300)}` })).compactionNote;
  }
  await memory.close();
  expect(note).toMatch(/no user\+assistant pair boundary: \d+ oldest message\(s\) moved to the archive/);
}, 60_000);

import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, openTemp, removeTempHomes, tempHome } from "../fixture/home.ts";
import { writeClaudeProjects } from "../fixture/import/claude-code.ts";
import { importWith } from "./support.ts";
import { importJsonlFiles } from "../../src/import/import-jsonl.ts";

afterAll(removeTempHomes);

describe("imported sessions and the summary cron", () => {
  test("imported sessions are due only with [import] summarize = true; written sessions as before", async () => {
    const projects = writeClaudeProjects(tempHome("cc-"));
    const home = tempHome();
    const { api } = openTemp({ home });
    await importWith(api, "claude-code", [projects]);
    api.add("mine", { role: "user", content: "a session written by an agent" });
    expect(api.dueSessions()).toEqual(["mine"]);
    // `summary` says what the cron does: an imported session is not due.
    const imported = api.sessions().find((s) => s.source !== undefined)!.id;
    expect(api.summary(imported).due).toBe(false);
    expect(api.summary("mine").due).toBe(true);
    api.close();
    const { api: on } = openTemp({ home, env: { MEMVOY_IMPORT_SUMMARIZE: "true" } });
    expect(on.config.import.summarize).toBe(true);
    expect(on.dueSessions()).toHaveLength(6);
    expect(on.summary(imported).due).toBe(true);
    on.close();
  });

  test("sessions an export moved into another home wait too; a session the home held keeps being summarized", async () => {
    const { api: from, home: fromHome } = openTemp();
    from.add("agent-1", [
      { role: "user", content: "a session written by an agent" },
      { role: "assistant", content: "and its answer" },
    ]);
    from.add("agent-2", { role: "user", content: "another one" });
    from.close();
    const exported = await cli(["export", "--all"], { home: fromHome });
    expect(exported.code).toBe(0);
    const file = join(tempHome("jsonl-"), "all.jsonl");
    writeFileSync(file, exported.stdout);
    const { api, home } = openTemp();
    // agent-2 is already here, written by an agent: the import adds to it and it stays due.
    api.add("agent-2", { role: "user", content: "said here first" });
    await importJsonlFiles(api, [file]);
    expect(api.dueSessions()).toEqual(["agent-2"]);
    expect(api.summary("agent-1").due).toBe(false);
    expect(api.summary("agent-1").waitsForImport).toBe(true);
    expect(api.summary("agent-2").waitsForImport).toBeUndefined();
    expect(api.sessions().find((s) => s.id === "agent-1")?.source).toBe("jsonl");
    api.close();
    // `summary` says why a session never summarized is not due, and how to run it now.
    const view = await cli(["summary", "agent-1"], { home });
    expect(view.stdout).toContain(
      "Due: no (an imported session: the cron and memvoy summarize wait for [import] summarize = true; memvoy summarize agent-1 runs it now)",
    );
    // The source it was given is not part of the export: export, import, export gives the same bytes.
    const { home: again } = openTemp();
    const back = await cli(["import", "jsonl", file], { home: again });
    expect(back.code).toBe(0);
    expect((await cli(["export", "--all"], { home: again })).stdout).toBe(exported.stdout);
    expect((await cli(["export", "agent-1"], { home })).stdout).not.toContain('"source"');
  });
});

describe("imported sessions in the terminal UI's list", () => {
  test("the row shows the title after the id, and the filter finds a title word", async () => {
    const { SessionListState } = await import("../../src/tui/state/session-list-state.ts");
    const { renderSessionList } = await import("../../src/tui/views/session-list-view.ts");
    const { Theme } = await import("../../src/tui/theme.ts");
    const projects = writeClaudeProjects(tempHome("cc-"));
    const { api } = openTemp();
    await importWith(api, "claude-code", [projects]);
    const state = new SessionListState();
    state.setSessions(api.sessions());
    for (const ch of "flaky") state.typeChar(ch);
    expect(state.visible.map((s) => s.id)).toEqual(["cc-5f0c1a2b-1111-4c3d-8e9f-0a1b2c3d4e5f"]);
    const lines = renderSessionList(state, new Theme("mono"), 120, 5, true, 0n).join("\n");
    expect(lines).toContain("cc-5f0c1a2b-1111-4c3d-8e9f-0a1b2c3d4e5f · Fix the flaky checkout test");
    api.close();
  });
});

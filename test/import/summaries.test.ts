import { afterAll, describe, expect, test } from "bun:test";
import { openTemp, removeTempHomes, tempHome } from "../helpers/home.ts";
import { writeClaudeProjects } from "../fixture/import/claude-code.ts";
import { importWith } from "./support.ts";

afterAll(removeTempHomes);

describe("imported sessions and the summary cron", () => {
  test("imported sessions are due only with [import] summarize = true; written sessions as before", async () => {
    const projects = writeClaudeProjects(tempHome("cc-"));
    const home = tempHome();
    const { api } = openTemp({ home });
    await importWith(api, "claude-code", [projects]);
    api.add("mine", { role: "user", content: "a session written by an agent" });
    expect(api.dueSessions()).toEqual(["mine"]);
    api.close();
    const { api: on } = openTemp({ home, env: { MEMVOY_IMPORT_SUMMARIZE: "true" } });
    expect(on.config.import.summarize).toBe(true);
    expect(on.dueSessions()).toHaveLength(6);
    on.close();
  });
});

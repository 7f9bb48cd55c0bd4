// doctor looks at the home beyond the sessions' history.json: a symbolic link at a lock file, a log or the vector
// store, and a file or link in sessions/ named like a session, are named (exit 1); --repair removes a linked lock
// file or log (never what it points to) and moves a stray file out of sessions/, after which the session works.
import { afterAll, expect, test } from "bun:test";
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { cli, openTemp, removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

interface Report {
  findings: { session?: string; problem: string; repaired?: string }[];
  ok: boolean;
}

const doctor = async (home: string, ...flags: string[]) => {
  const r = await cli(["doctor", "--json", ...flags], { home });
  return { code: r.code, report: JSON.parse(r.stdout) as Report };
};

test("links at lock files, logs and the vector store, and stray entries in sessions/, are named; --repair fixes what it can", async () => {
  const { home, api } = openTemp({ drain: "off" });
  api.add("s1", { role: "user", content: "hello" });
  api.add("s2", { role: "user", content: "kept in the archive" });
  api.close();
  const outside = tempHome("memvoy-outside-");
  const victim = join(outside, "notes.txt");
  writeFileSync(victim, "precious");
  const sessions = join(home, "sessions");
  rmSync(join(sessions, "s2"), { recursive: true });
  writeFileSync(join(sessions, "s2"), "a file where s2's folder was");
  writeFileSync(join(sessions, "notes.txt"), "my own notes");
  writeFileSync(join(sessions, ".DS_Store"), "Finder's"); // no session id: not memvoy's business
  symlinkSync(outside, join(sessions, "evil"));
  for (const f of [".store/embed.lock", ".store/write.lock", "daemon.log"]) {
    rmSync(join(home, f), { force: true });
    symlinkSync(victim, join(home, f));
  }
  symlinkSync(outside, join(home, ".store", "relevance")); // a cache folder
  mkdirSync(join(home, ".store", "lance"));
  symlinkSync(outside, join(home, ".store", "lance", "messages_x.lance"));

  const before = await doctor(home);
  expect(before.code).toBe(1);
  const problems = before.report.findings.map((f) => `${f.session ?? "-"} ${f.problem}`);
  for (const expected of [
    `- ${join(home, ".store", "embed.lock")} is a symbolic link`,
    `- ${join(home, ".store", "write.lock")} is a symbolic link`,
    `- ${join(home, "daemon.log")} is a symbolic link`,
    `- ${join(home, ".store", "relevance")} is a symbolic link`,
    `- ${join(home, ".store", "lance", "messages_x.lance")} is a symbolic link`,
    `s2 ${join(sessions, "s2")} is a file where memvoy keeps the session's folder`,
    `notes.txt ${join(sessions, "notes.txt")} is a file where memvoy keeps the session's folder`,
    `evil ${join(sessions, "evil")} is a symbolic link`,
  ])
    expect(problems.some((p) => p.startsWith(expected))).toBe(true);
  expect(problems.some((p) => p.includes(".DS_Store"))).toBe(false);
  expect(before.report.findings.every((f) => f.repaired === undefined)).toBe(true);

  const repaired = await doctor(home, "--repair");
  expect(repaired.code).toBe(1); // the links at the vector table and at sessions/evil are the user's to replace
  expect(readFileSync(victim, "utf8")).toBe("precious");
  for (const f of [".store/embed.lock", ".store/write.lock", "daemon.log", ".store/relevance"])
    expect(lstatSync(join(home, f), { throwIfNoEntry: false })?.isSymbolicLink() ?? false).toBe(false);
  const moved = readdirSync(home).filter((n) => n.includes(".stray-"));
  expect(moved.map((n) => n.split(".stray-")[0]).sort()).toEqual(["notes.txt", "s2"]);
  expect(readFileSync(join(home, moved.find((n) => n.startsWith("notes.txt"))!), "utf8")).toBe("my own notes");
  expect(lstatSync(join(sessions, "evil")).isSymbolicLink()).toBe(true);
  const h = await cli(["history", "s2", "--json"], { home });
  expect(JSON.parse(h.stdout).messages.map((m: { content: string }) => m.content)).toEqual(["kept in the archive"]);

  const after = await doctor(home);
  expect(after.report.findings.map((f) => f.problem.split(" is ")[0])).toEqual([
    join(home, ".store", "lance", "messages_x.lance"),
    join(sessions, "evil"),
  ]);
  const text = await cli(["doctor", "--repair"], { home });
  expect(text.stdout.trim().split("\n").at(-1)).toBe(
    "problems left that --repair does not change; each says what to do",
  );
});

test("an unreadable summary.json and a cursor holding no time are named, with what the next summary run does", async () => {
  const { home, api } = openTemp({ drain: "off" });
  api.add("s1", { role: "user", content: "hello" });
  api.close();
  writeFileSync(join(home, "sessions", "s1", "summary.json"), '{"summary": ', { mode: 0o600 });
  writeFileSync(join(home, "sessions", "s1", ".summary_cursor"), "garbage", { mode: 0o600 });
  const { code, report } = await doctor(home);
  expect(code).toBe(1);
  expect(report.findings.map((f) => `${f.session} ${f.problem}`)).toEqual([
    "s1 summary.json is unreadable (not valid JSON): fix it by hand, or the next summary run moves it aside and summarizes from the first message",
    's1 .summary_cursor holds no time ("garbage", not YYYY-MM-DD HH:MM:SS): the next summary run writes it again',
  ]);
});

test("a vector store without message vectors, where the archive says messages were embedded, is named with the way out", async () => {
  const { home, api } = openTemp({ drain: "off" });
  api.add("s1", [
    { role: "user", content: "the deploy failed" },
    { role: "assistant", content: "raise the memory limit" },
  ]);
  api.close();
  expect((await cli(["reindex", "--quiet"], { home })).code).toBe(0);
  expect((await doctor(home)).report.findings).toEqual([]);
  rmSync(join(home, ".store", "lance"), { recursive: true });
  const r = await cli(["doctor"], { home });
  expect(r.code).toBe(1);
  expect(r.stdout.trim().split("\n").slice(1)).toEqual([
    `${join(home, ".store", "lance")} holds no message vectors, but 2 recent message(s) were embedded: semantic search finds nothing until memvoy reindex runs`,
    "problems left that --repair does not change; each says what to do",
  ]);
  expect((await cli(["reindex", "--quiet"], { home })).code).toBe(0);
  expect((await doctor(home)).code).toBe(0);
});

test("vectors made by another embedder than the configured one (the config changed, no reindex) are named", async () => {
  const { home, api } = openTemp({ drain: "off" });
  api.add("s1", [
    { role: "user", content: "the deploy failed" },
    { role: "assistant", content: "raise the memory limit" },
  ]);
  api.close();
  expect((await cli(["reindex", "--quiet"], { home })).code).toBe(0);
  // An HTTP embedder whose id is known without asking it: no server is needed to check.
  writeFileSync(
    join(home, "config.toml"),
    '[embedder]\nprovider = "ollama"\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "all-minilm"\ndimensions = 384\n',
  );
  const r = await cli(["doctor"], { home });
  expect(r.code).toBe(1);
  expect(r.stdout.trim().split("\n").slice(1)).toEqual([
    `the message vectors in ${join(home, ".store", "lance")} come from another embedder than the configured one (ollama:all-minilm:384): semantic search finds nothing until memvoy reindex runs`,
    "problems left that --repair does not change; each says what to do",
  ]);
  // Back to the embedder that made them; a model whose dimension only the server knows is judged by its name.
  writeFileSync(join(home, "config.toml"), "");
  expect((await doctor(home)).code).toBe(0);
  writeFileSync(join(home, "config.toml"), '[embedder]\nprovider = "ollama"\nmodel = "all-minilm"\n');
  const learnt = await cli(["doctor"], { home });
  expect(learnt.code).toBe(1);
  expect(learnt.stdout).toContain("another embedder than the configured one (ollama:all-minilm)");
});

test("files and folders of the home open to other users (a restore under another umask) are named; --repair makes them private", async () => {
  const { home, api } = openTemp({ drain: "off" });
  api.add("s1", { role: "user", content: "a private conversation" });
  api.close();
  writeFileSync(join(home, "config.toml"), ""); // the user's file: left as it is
  chmodSync(join(home, "config.toml"), 0o644);
  const history = join(home, "sessions", "s1", "history.json");
  chmodSync(history, 0o644);
  chmodSync(join(home, ".store", "history.db"), 0o664);
  chmodSync(join(home, "sessions"), 0o755);
  const before = await doctor(home);
  expect(before.code).toBe(1);
  expect(before.report.findings.map((f) => f.problem)).toEqual([
    // sessions/, history.json, history.db and the -wal and -shm files SQLite gives the database's mode
    `5 file(s) or folder(s) in the home are open to other users (${join(home, "sessions")} is 0755); memvoy keeps files 0600 and folders 0700`,
  ]);
  const repaired = await doctor(home, "--repair");
  expect(repaired.code).toBe(0);
  expect(repaired.report.findings[0]!.repaired).toBe("took the group and other permissions off 5 file(s) or folder(s)");
  expect(statSync(history).mode & 0o777).toBe(0o600);
  expect(statSync(join(home, ".store", "history.db")).mode & 0o777).toBe(0o600);
  expect(statSync(join(home, "sessions")).mode & 0o777).toBe(0o700);
  expect(statSync(join(home, "config.toml")).mode & 0o777).toBe(0o644);
});

test("a session folder whose name is no session id (so no command reads it) is named when it holds a history.json", async () => {
  const { home, api } = openTemp({ drain: "off" });
  api.add("s1", { role: "user", content: "hello" });
  api.close();
  const record = JSON.stringify([{ role: "user", content: "hidden away", sendAt: 1_767_261_600_000_000_000 }]);
  for (const name of ["chat:42", "my notes", ".Trash"]) {
    mkdirSync(join(home, "sessions", name, "old"), { recursive: true, mode: 0o700 });
    writeFileSync(join(home, "sessions", name, "history.json"), record, { mode: 0o600 });
  }
  mkdirSync(join(home, "sessions", "empty folder"), { mode: 0o700 }); // no history.json: nothing to lose
  const r = await doctor(home);
  expect(r.code).toBe(1);
  expect(r.report.findings.map((f) => f.problem).sort()).toEqual(
    ["chat:42", "my notes"].map(
      (name) =>
        `${join(home, "sessions", name)} holds a history.json, but ${JSON.stringify(name)} is no session id, so memvoy never reads it: rename the folder to 1-128 characters of A-Z a-z 0-9 . _ - (not starting with ".")`,
    ),
  );
});

test("names of the home's files reach the terminal without their escape sequences or control characters", async () => {
  const { home, api } = openTemp({ drain: "off" });
  api.add("s", { role: "user", content: "hello" });
  api.close();
  const dir = join(home, "sessions", "s");
  // A temp file a dead writer left, and a file open to other users, each named with an OSC title sequence.
  writeFileSync(join(dir, ".\x1b]0;owned\x07history.json.99999999.abc.tmp"), "", { mode: 0o600 });
  writeFileSync(join(dir, "\x1b[2Jnote\r"), "", { mode: 0o644 });
  chmodSync(join(dir, "\x1b[2Jnote\r"), 0o644);
  const r = await cli(["doctor"], { home });
  expect(r.code).toBe(1);
  expect(r.stdout).toContain("history.json.99999999.abc.tmp");
  expect(r.stdout).toContain("note");
  expect(r.stdout).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
  // --json keeps the names exactly: a program reading it gets the real file name.
  const { report } = await doctor(home);
  expect(report.findings.map((f) => f.problem).join("\n")).toContain("\x1b]0;owned\x07");
});

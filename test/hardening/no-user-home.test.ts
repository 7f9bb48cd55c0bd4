// A user with no home folder (HOME unset, and a uid the system's user list does not know: a container run as a
// bare uid, systemd's DynamicUser): a command that needs one says so in one line (exit 2); --home DIR works.
import { afterAll, expect, test } from "bun:test";
import { chmodSync } from "node:fs";
import { join } from "node:path";
import { removeTempHomes, repoRoot, tempHome } from "../fixture/home.ts";
import { processOutput } from "../fixture/process-output.ts";

afterAll(removeTempHomes);

// A uid with no entry in /etc/passwd.
const UID = 54_321;

function whyNot(): string | undefined {
  if (process.platform !== "linux") return "a uid with no user entry is taken with Linux's setpriv";
  if (process.getuid?.() !== 0) return "running as a uid with no user entry needs root";
  if (!Bun.which("setpriv")) return "setpriv is not installed";
  if (Bun.spawnSync(["getent", "passwd", String(UID)]).exitCode === 0) return `uid ${UID} has a user entry here`;
  return undefined;
}

const skip = whyNot();
if (skip) console.log(`skipped: ${skip}`);

async function asBareUid(args: string[], cwd: string) {
  const proc = Bun.spawn(
    [
      "setpriv",
      `--reuid=${UID}`,
      `--regid=${UID}`,
      "--clear-groups",
      "--",
      "bun",
      join(repoRoot, "src/index.ts"),
      ...args,
    ],
    { cwd, env: { PATH: process.env.PATH!, TZ: "UTC" }, stdin: "ignore", stdout: "pipe", stderr: "pipe" },
  );
  return processOutput(proc);
}

test.skipIf(skip !== undefined)(
  "no home folder: the default home, --home ~/DIR and an import's default location are one clear line; --home DIR works",
  async () => {
    const dir = tempHome();
    chmodSync(dir, 0o777);
    const line = "memvoy: HOME is not set and this user has no home folder in the system's user list: ";
    const bare = await asBareUid(["sessions"], dir);
    expect([bare.code, bare.stderr]).toEqual([2, `${line}give --home DIR or set MEMVOY_HOME\n`]);
    const tilde = await asBareUid(["--home", "~/mem", "sessions"], dir);
    expect([tilde.code, tilde.stderr]).toEqual([2, `${line}set HOME, or write ~/mem as a full path\n`]);
    const home = join(dir, "mem");
    const add = await asBareUid(["--home", home, "add", "s", "--role", "user", "--content", "no home folder"], dir);
    expect(add.code, add.stderr).toBe(0);
    const found = await asBareUid(["--home", home, "search", "folder", "--json"], dir);
    expect(JSON.parse(found.stdout).hits[0].content).toBe("no home folder");
    const imported = await asBareUid(["--home", home, "import", "claude-code"], dir);
    expect([imported.code, imported.stderr]).toEqual([2, `${line}give the files to import as PATH\n`]);
  },
  60_000,
);

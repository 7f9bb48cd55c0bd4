// The release tarball (bun build.ts --release) and scripts/install.sh: checksums verify, the installed binary
// runs from another folder, man renders the installed page, completions land where shells look.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../package.json";
import { buildBinaryOnce, makeTempDir, removeTempDirs, repoRoot, runBinary } from "./fixture/binary.ts";
import { processOutput } from "./fixture/process-output.ts";

let tarball = "";
let outDir = "";

async function run(cmd: string[], o: { cwd?: string; env?: Record<string, string> } = {}) {
  const proc = Bun.spawn(cmd, {
    cwd: o.cwd ?? makeTempDir(),
    env: { PATH: "/usr/local/bin:/usr/bin:/bin", LANG: "C.UTF-8", ...o.env },
    stdout: "pipe",
    stderr: "pipe",
  });
  return processOutput(proc);
}

beforeAll(async () => {
  const bin = await buildBinaryOnce();
  outDir = join(bin, "..");
  const r = await run(
    [process.execPath, join(repoRoot, "build.ts"), "--no-compile", "--release", "--gzip-level", "1", "--outfile", bin],
    { cwd: repoRoot },
  );
  expect(r.code, r.stderr).toBe(0);
  tarball = join(outDir, `memvoy-${pkg.version}-${process.platform}-${process.arch}.tar.gz`);
}, 900_000);
afterAll(removeTempDirs);

describe("release tarball and install.sh", () => {
  test("the tarball holds the binary, man page, completions, unit, README excerpt, install.sh and SHA256SUMS; both checksums verify", async () => {
    expect((await run(["sha256sum", "--check", `${tarball}.sha256`], { cwd: outDir })).code).toBe(0);
    const list = await run(["tar", "-tzf", tarball]);
    const name = `memvoy-${pkg.version}-${process.platform}-${process.arch}`;
    const files = list.stdout
      .trim()
      .split("\n")
      .map((f) => f.replace(`${name}/`, ""))
      .filter((f) => f && !f.endsWith("/"))
      .sort();
    expect(files).toEqual(
      [
        "README.md",
        "SHA256SUMS",
        "completions/_memvoy",
        "completions/memvoy.bash",
        "completions/memvoy.fish",
        "install.sh",
        "memvoy",
        "memvoy.1",
        "memvoy.service",
      ].sort(),
    );
    const unpacked = makeTempDir();
    expect((await run(["tar", "-xzf", tarball, "-C", unpacked])).code).toBe(0);
    const sums = await run(["sha256sum", "--check", "SHA256SUMS"], { cwd: join(unpacked, name) });
    expect(sums.code, sums.stderr).toBe(0);
    expect(sums.stdout.trim().split("\n")).toHaveLength(8);
    expect(readFileSync(join(unpacked, name, "README.md"), "utf8")).toContain("## Installing");
  }, 120_000);

  test("install.sh from the tarball: binary in ~/.local/bin runs from another folder, man -l renders the page, completions installed", async () => {
    const home = makeTempDir();
    const inst = await run(["sh", join(repoRoot, "scripts/install.sh"), tarball], { env: { HOME: home } });
    expect(inst.code, inst.stderr).toBe(0);
    expect(inst.stdout).toContain("checksums verified");
    const bin = join(home, ".local/bin/memvoy");
    const elsewhere = makeTempDir();
    const v = await runBinary(bin, ["-v"], { cwd: elsewhere });
    expect(v.stdout.trim()).toBe(`memvoy ${pkg.version}`);
    const data = join(elsewhere, "data");
    expect(
      (
        await runBinary(bin, ["--home", data, "add", "s", "--role", "user", "--content", "installed and working"], {
          cwd: elsewhere,
        })
      ).code,
    ).toBe(0);
    const found = await runBinary(bin, ["--home", data, "search", "working", "--json"], { cwd: elsewhere });
    expect(JSON.parse(found.stdout).hits[0].content).toBe("installed and working");
    const page = join(home, ".local/share/man/man1/memvoy.1");
    const man = await run(["man", "-l", page], { env: { MANPAGER: "cat", PAGER: "cat", MANWIDTH: "120", HOME: home } });
    expect(man.code, man.stderr).toBe(0);
    expect(man.stdout).toContain("MEMVOY(1)");
    expect(man.stdout).toContain("memvoy search QUERY");
    expect(man.stdout).toContain("--since TIME");
    for (const f of [
      ".local/share/bash-completion/completions/memvoy",
      ".local/share/zsh/site-functions/_memvoy",
      ".config/fish/completions/memvoy.fish",
    ])
      expect(existsSync(join(home, f))).toBe(true);
    const unit = readFileSync(join(home, ".local/share/memvoy/memvoy.service"), "utf8");
    expect(unit).toContain(`ExecStart=${bin} --daemon`);
    // The set-up steps at its top copy this installed unit, not the source tree's (whose ExecStart is /usr/local/bin).
    expect(unit).toContain(
      `#   install -Dm644 "${home}/.local/share/memvoy/memvoy.service" ~/.config/systemd/user/memvoy.service\n`,
    );
    // The installed bash completion works against the installed binary.
    const comp = await run(
      [
        "bash",
        "-c",
        `source ${join(home, ".local/share/bash-completion/completions/memvoy")}; COMP_WORDS=(memvoy sta); COMP_CWORD=1; _memvoy; echo "\${COMPREPLY[@]}"`,
      ],
      {
        env: { HOME: home, PATH: `${join(home, ".local/bin")}:/usr/bin:/bin` },
      },
    );
    expect(comp.stdout.trim()).toBe("stats");
  }, 120_000);

  test("a relative --prefix installs under the current folder, and the unit names the binary by its absolute path", async () => {
    const cwd = makeTempDir();
    const inst = await run(["sh", join(repoRoot, "scripts/install.sh"), "--prefix", "opt/mv", tarball], {
      cwd,
      env: { HOME: makeTempDir() },
    });
    expect(inst.code, inst.stderr).toBe(0);
    const bin = join(cwd, "opt/mv/bin/memvoy");
    expect((await runBinary(bin, ["-v"], { cwd: makeTempDir() })).stdout.trim()).toBe(`memvoy ${pkg.version}`);
    expect(readFileSync(join(cwd, "opt/mv/share/memvoy/memvoy.service"), "utf8")).toContain(
      `ExecStart=${bin} --daemon`,
    );
    expect(inst.stdout).toContain(`export PATH="${join(cwd, "opt/mv/bin")}:$PATH"`);
  }, 120_000);

  test("a ~ the shell left as it is (--prefix=~/x, PREFIX=~/x) is the user's home, not a folder named ~", async () => {
    const cwd = makeTempDir();
    const home = makeTempDir();
    const script = join(repoRoot, "scripts/install.sh");
    const given = await run(["sh", script, "--prefix=~/tools", outDir], { cwd, env: { HOME: home } });
    expect(given.code, given.stderr).toBe(0);
    const fromEnv = await run(["sh", script, outDir], { cwd, env: { HOME: home, PREFIX: "~/env-tools" } });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    for (const prefix of ["tools", "env-tools"]) {
      const bin = join(home, prefix, "bin/memvoy");
      expect((await runBinary(bin, ["-v"], { cwd: makeTempDir() })).stdout.trim()).toBe(`memvoy ${pkg.version}`);
      expect(readFileSync(join(home, prefix, "share/memvoy/memvoy.service"), "utf8")).toContain(
        `ExecStart=${bin} --daemon`,
      );
    }
    expect(readdirSync(cwd)).toEqual([]);
    const noHome = await run(["sh", script, "--prefix=~/tools", outDir], { cwd });
    expect(noHome.code).toBe(2);
    expect(noHome.stderr.trim()).toBe("install.sh: HOME is not set: give --prefix as a full path, not ~/tools");
  }, 120_000);

  test("the fish completion goes under an absolute XDG_CONFIG_HOME; a relative one is ignored, not made in the current folder", async () => {
    const script = join(repoRoot, "scripts/install.sh");
    const home = makeTempDir();
    const xdg = join(makeTempDir(), "conf");
    const absolute = await run(["sh", script, outDir], { env: { HOME: home, XDG_CONFIG_HOME: xdg } });
    expect(absolute.code, absolute.stderr).toBe(0);
    expect(existsSync(join(xdg, "fish/completions/memvoy.fish"))).toBe(true);
    const cwd = makeTempDir();
    const relative = await run(["sh", script, outDir], { cwd, env: { HOME: home, XDG_CONFIG_HOME: "conf" } });
    expect(relative.code, relative.stderr).toBe(0);
    expect(readdirSync(cwd)).toEqual([]);
    expect(existsSync(join(home, ".config/fish/completions/memvoy.fish"))).toBe(true);
  }, 120_000);

  test("a tampered release is refused and nothing is installed", async () => {
    const unpacked = makeTempDir();
    await run(["tar", "-xzf", tarball, "-C", unpacked]);
    const dir = join(unpacked, `memvoy-${pkg.version}-${process.platform}-${process.arch}`);
    writeFileSync(join(dir, "memvoy.1"), readFileSync(join(dir, "memvoy.1"), "utf8") + '.\\" changed\n');
    const home = makeTempDir();
    mkdirSync(join(home, ".local"), { recursive: true });
    const inst = await run(["sh", join(dir, "install.sh")], { env: { HOME: home } });
    expect(inst.code).toBe(2);
    expect(inst.stderr).toContain("do not match");
    expect(existsSync(join(home, ".local/bin/memvoy"))).toBe(false);
  }, 120_000);
  test("a --prefix holding a space or a % gives a unit whose ExecStart names the installed binary", async () => {
    const home = makeTempDir();
    for (const name of ["my tools", "50%"]) {
      const prefix = join(makeTempDir(), name);
      const inst = await run(["sh", join(repoRoot, "scripts/install.sh"), "--prefix", prefix, outDir], {
        env: { HOME: home },
      });
      expect(inst.code, inst.stderr).toBe(0);
      const exec = name === "50%" ? `${prefix.replace("%", "%%")}/bin/memvoy` : `"${prefix}/bin/memvoy"`;
      expect(readFileSync(join(prefix, "share/memvoy/memvoy.service"), "utf8")).toContain(
        `\nExecStart=${exec} --daemon --home %h/.config/memvoy\n`,
      );
    }
  }, 120_000);

  test("with HOME unset, --prefix installs and no --prefix is one clear line", async () => {
    const prefix = join(makeTempDir(), "p");
    const inst = await run(["sh", join(repoRoot, "scripts/install.sh"), "--prefix", prefix, outDir]);
    expect(inst.code, inst.stderr).toBe(0);
    expect(readdirSync(join(prefix, "share/fish/vendor_completions.d"))).toEqual(["memvoy.fish"]);
    const bare = await run(["sh", join(repoRoot, "scripts/install.sh"), outDir]);
    expect(bare.code).toBe(2);
    expect(bare.stderr.trim()).toBe("install.sh: HOME is not set: name where to install with --prefix DIR");
  }, 120_000);

  // cp stand-ins on PATH, so a disk that fills or a stop signal can be met at a chosen file.
  function failingCp(behaviour: string): string {
    const dir = makeTempDir();
    const cp = join(dir, "cp");
    writeFileSync(
      cp,
      `#!/bin/sh\ncase "$1" in */memvoy) head -c 1000 "$1" > "$2"; ${behaviour} ;; esac\nexec /bin/cp "$@"\n`,
    );
    chmodSync(cp, 0o755);
    return `${dir}:/usr/local/bin:/usr/bin:/bin`;
  }

  test("a copy that fails over an older install stops with exit 2, keeps the old binary and leaves no temp file", async () => {
    const prefix = makeTempDir();
    mkdirSync(join(prefix, "bin"));
    writeFileSync(join(prefix, "bin/memvoy"), "#!/bin/sh\necho memvoy 0.1.0\n");
    chmodSync(join(prefix, "bin/memvoy"), 0o755);
    const path = failingCp(`echo "cp: error writing '$2': No space left on device" >&2; exit 1`);
    const inst = await run(["sh", join(repoRoot, "scripts/install.sh"), "--prefix", prefix, outDir], {
      env: { HOME: makeTempDir(), PATH: path },
    });
    expect(inst.code).toBe(2);
    expect(inst.stderr).toContain(`install.sh: could not install ${prefix}/bin/memvoy`);
    expect(inst.stdout).not.toContain("done");
    expect(readdirSync(join(prefix, "bin"))).toEqual(["memvoy"]);
    expect(readFileSync(join(prefix, "bin/memvoy"), "utf8")).toContain("0.1.0");
    expect(existsSync(join(prefix, "share/man/man1/memvoy.1"))).toBe(false);
  }, 120_000);

  test("a binary that does not run here (another processor's release) leaves an older install as it was", async () => {
    const prefix = makeTempDir();
    mkdirSync(join(prefix, "bin"));
    writeFileSync(join(prefix, "bin/memvoy"), "#!/bin/sh\necho memvoy 0.1.0\n");
    chmodSync(join(prefix, "bin/memvoy"), 0o755);
    const release = makeTempDir();
    // An ELF header with nothing behind it: the system refuses to run it, as it does a binary for another processor.
    writeFileSync(join(release, "memvoy"), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]));
    const inst = await run(["sh", join(repoRoot, "scripts/install.sh"), "--prefix", prefix, release], {
      env: { HOME: makeTempDir() },
    });
    expect(inst.code).toBe(2);
    expect(inst.stderr).toContain("install.sh: the memvoy binary does not run on this machine");
    expect(readdirSync(join(prefix, "bin"))).toEqual(["memvoy"]);
    expect((await run([join(prefix, "bin/memvoy"), "--version"])).stdout).toBe("memvoy 0.1.0\n");
  }, 120_000);

  test("a stop signal during the install ends it (exit 143) with no temp file left", async () => {
    const prefix = makeTempDir();
    const inst = await run(["sh", join(repoRoot, "scripts/install.sh"), "--prefix", prefix, outDir], {
      env: { HOME: makeTempDir(), PATH: failingCp("kill -TERM $PPID; exit 1") },
    });
    expect(inst.code).toBe(143);
    expect(inst.stdout).not.toContain("done");
    expect(readdirSync(join(prefix, "bin"))).toEqual([]);
    expect(existsSync(join(prefix, "share/man/man1/memvoy.1"))).toBe(false);
  }, 120_000);

  test("under a umask of 077 the folders made are readable by every user, as the files are", async () => {
    const prefix = join(makeTempDir(), "opt");
    const inst = await run(
      ["sh", "-c", `umask 077; exec sh '${join(repoRoot, "scripts/install.sh")}' --prefix '${prefix}' '${outDir}'`],
      { env: { HOME: makeTempDir() } },
    );
    expect(inst.code, inst.stderr).toBe(0);
    const mode = (p: string) => (statSync(join(prefix, p)).mode & 0o777).toString(8);
    expect(["bin", "share/man/man1", "share/zsh/site-functions", "share/memvoy"].map(mode)).toEqual([
      "755",
      "755",
      "755",
      "755",
    ]);
    expect([mode("bin/memvoy"), mode("share/man/man1/memvoy.1")]).toEqual(["755", "644"]);
  }, 120_000);

  test("a prefix where a folder cannot be made installs nothing and says where (exit 2)", async () => {
    const prefix = makeTempDir();
    writeFileSync(join(prefix, "share"), "a file where share/ would go\n");
    const inst = await run(["sh", join(repoRoot, "scripts/install.sh"), "--prefix", prefix, outDir], {
      env: { HOME: makeTempDir() },
    });
    expect(inst.code).toBe(2);
    expect(inst.stderr.trim()).toBe(
      `install.sh: cannot write to ${prefix}/share/man/man1: choose another --prefix (or run as a user who may write there)`,
    );
    expect(existsSync(join(prefix, "bin/memvoy"))).toBe(false);
  }, 120_000);
});

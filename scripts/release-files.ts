// What `bun run build` puts beside the binary (man page, completions) and what --release packs into a tarball.
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import pkg from "../package.json" with { type: "json" };
import { SCRIPT_FILES, SHELLS, type Shell } from "../src/cli/completion-scripts.ts";
import { renderManPage } from "../src/cli/man-page.ts";

const root = resolve(import.meta.dir, "..");

/** memvoy.1 and completions/ beside the binary. */
export async function writeDocs(dir: string): Promise<string[]> {
  const written = [join(dir, "memvoy.1")];
  writeFileSync(written[0]!, await renderManPage(pkg.version));
  mkdirSync(join(dir, "completions"), { recursive: true });
  for (const shell of Object.keys(SHELLS) as Shell[]) {
    const file = join(dir, "completions", SCRIPT_FILES[shell]);
    writeFileSync(file, SHELLS[shell]);
    written.push(file);
  }
  return written;
}

/** The README sections a release carries: installing and using memvoy. */
export function readmeExcerpt(): string {
  const text = readFileSync(join(root, "README.md"), "utf8");
  const section = (title: string) => {
    const start = text.indexOf(`\n## ${title}\n`);
    if (start < 0) throw new Error(`README.md has no "## ${title}" section`);
    const end = text.indexOf("\n## ", start + 1);
    return text.slice(start + 1, end < 0 ? undefined : end).trimEnd();
  };
  return [`# memvoy ${pkg.version}`, "", "The install and usage sections of the README; the full README, docs/ and the source come with the source tree.", "", section("Installing"), "", section("Using it"), ""].join("\n");
}

const sha256 = (file: string) => new Bun.CryptoHasher("sha256").update(readFileSync(file)).digest("hex");

/**
 * dist/memvoy-VERSION-OS-ARCH.tar.gz holding the binary, the man page, completions, the systemd unit, a
 * README excerpt, install.sh and SHA256SUMS (of every other file), plus the tarball's own .sha256 beside it.
 */
export async function makeRelease(binary: string, outDir: string, gzipLevel = 6): Promise<string> {
  const name = `memvoy-${pkg.version}-${process.platform}-${process.arch}`;
  const stage = join(outDir, name);
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  copyFileSync(binary, join(stage, "memvoy"));
  chmodSync(join(stage, "memvoy"), 0o755);
  await writeDocs(stage);
  copyFileSync(join(root, "contrib/memvoy.service"), join(stage, "memvoy.service"));
  copyFileSync(join(root, "scripts/install.sh"), join(stage, "install.sh"));
  chmodSync(join(stage, "install.sh"), 0o755);
  writeFileSync(join(stage, "README.md"), readmeExcerpt());
  const files = ["memvoy", "memvoy.1", ...Object.values(SCRIPT_FILES).map((f) => `completions/${f}`), "memvoy.service", "README.md", "install.sh"];
  writeFileSync(join(stage, "SHA256SUMS"), files.map((f) => `${sha256(join(stage, f))}  ${f}\n`).join(""));
  const tarball = join(outDir, `${name}.tar.gz`);
  const tar = Bun.spawnSync(["tar", "-cf", tarball, "-I", `gzip -${gzipLevel}`, "-C", outDir, "--owner=0", "--group=0", "--numeric-owner", name], { stderr: "pipe" });
  if (tar.exitCode !== 0) throw new Error(`tar failed: ${tar.stderr.toString()}`);
  rmSync(stage, { recursive: true, force: true });
  writeFileSync(`${tarball}.sha256`, `${sha256(tarball)}  ${basename(tarball)}\n`);
  return tarball;
}



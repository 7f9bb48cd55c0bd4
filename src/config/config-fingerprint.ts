// A hash of what decides the Config a config.toml loads to (the loader, the schema, their packages): build.ts
// defines it into the compiled binary as a literal; from source, load-cached.ts takes it at its first use.
import { readFileSync } from "node:fs";
import pkg from "../../package.json" with { type: "json" };

const SOURCES = ["load.ts", "schema.ts", "vectors-schema.ts", "archive-url.ts"];

export function configFingerprint(): string {
  const h = new Bun.CryptoHasher("sha256");
  h.update(`${pkg.version} valibot ${pkg.dependencies.valibot} smol-toml ${pkg.dependencies["smol-toml"]}\n`);
  for (const f of SOURCES) h.update(readFileSync(new URL(f, import.meta.url)));
  return h.digest("hex").slice(0, 16);
}

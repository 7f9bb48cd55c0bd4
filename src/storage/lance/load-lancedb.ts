// Loads @lancedb/lancedb on first use, after telling its Rust logger to print errors only.
// Bun's process.env does not reach native getenv(), so the variable is set through libc.
import { dlopen, FFIType } from "bun:ffi";
import { rmdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { namedError } from "../../shared/errors.ts";
import { makeTempFolder } from "../../shared/folder-made.ts";

type LanceModule = typeof import("@lancedb/lancedb");
type ArrowModule = typeof import("apache-arrow");

let loading: Promise<{ lancedb: LanceModule; arrow: ArrowModule }> | undefined;

function quietNativeLogs(): void {
  if (process.platform === "win32") return;
  try {
    const libc = dlopen(process.platform === "darwin" ? "libc.dylib" : "libc.so.6", {
      setenv: { args: [FFIType.cstring, FFIType.cstring, FFIType.i32], returns: FFIType.i32 },
    });
    // overwrite = 0: a user who sets LANCEDB_LOG themselves keeps their level.
    libc.symbols.setenv(Buffer.from("LANCEDB_LOG\0"), Buffer.from("error\0"), 0);
    libc.close();
  } catch {
    // Without libc we only lose the log filter, never the feature.
  }
}

/** The temp folder the compiled memvoy unpacks LanceDB's native module into is mounted noexec: it cannot load it. */
export const NoExecTempError = namedError<{ dir: string; fromEnv: boolean }>(
  "NoExecTempError",
  "input",
  (d) =>
    `cannot load the vector store's native module: memvoy unpacks it into the temporary folder ${d.dir}${d.fromEnv ? " (TMPDIR)" : ""}, ` +
    "whose file system is mounted noexec; set TMPDIR to a folder where programs may run",
);
export type NoExecTempError = InstanceType<typeof NoExecTempError>;

/** The messages of an error's cause (LanceDB gives the loader's failures as an array). */
function causeText(err: unknown): string {
  const cause = (err as { cause?: unknown } | undefined)?.cause;
  const list = Array.isArray(cause) ? cause : [cause];
  return list.map((c) => String((c as { message?: unknown } | undefined)?.message ?? c ?? "")).join("\n");
}

/**
 * The compiled memvoy unpacks LanceDB's native module into the temp folder before loading it: a TMPDIR that does not
 * exist, that this user may not write, or that is mounted noexec leaves only the module's own "Cannot find native
 * binding ... npm i" advice, no help with a binary. Throws the error that says which; returns when it is none of them.
 */
function checkTempFolder(err: unknown): void {
  rmdirSync(makeTempFolder("memvoy-"));
  if (/failed to map segment/i.test(causeText(err)))
    throw new NoExecTempError({ dir: tmpdir(), fromEnv: Boolean(process.env.TMPDIR) }, { cause: err });
}

export function loadLanceDb(): Promise<{ lancedb: LanceModule; arrow: ArrowModule }> {
  loading ??= (async () => {
    quietNativeLogs();
    try {
      const [lancedb, arrow] = await Promise.all([import("@lancedb/lancedb"), import("apache-arrow")]);
      return { lancedb, arrow };
    } catch (err) {
      checkTempFolder(err);
      throw err;
    }
  })();
  return loading;
}

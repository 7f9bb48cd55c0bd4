// Loads @lancedb/lancedb on first use, after telling its Rust logger to print errors only.
// Bun's process.env does not reach native getenv(), so the variable is set through libc.
import { dlopen, FFIType } from "bun:ffi";
import { rmdirSync } from "node:fs";
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

/**
 * The compiled memvoy unpacks LanceDB's native module into the temp folder before loading it: a TMPDIR that does not
 * exist, or that this user may not write, leaves only the module's own "Cannot find native binding ... npm i" advice,
 * no help with a binary. Throws the TempFolderError that says so; returns when a temp folder can be made.
 */
function checkTempFolder(): void {
  rmdirSync(makeTempFolder("memvoy-"));
}

export function loadLanceDb(): Promise<{ lancedb: LanceModule; arrow: ArrowModule }> {
  loading ??= (async () => {
    quietNativeLogs();
    try {
      const [lancedb, arrow] = await Promise.all([import("@lancedb/lancedb"), import("apache-arrow")]);
      return { lancedb, arrow };
    } catch (err) {
      checkTempFolder();
      throw err;
    }
  })();
  return loading;
}

// A folder's entries, typed; none when it cannot be read (gone meanwhile, not a folder, no permission).
import { type Dirent, readdirSync } from "node:fs";

export function dirEntries(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

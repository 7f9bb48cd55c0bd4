// The local vector store is never followed through a symbolic link: .store/lance, a table folder in it, or a
// folder of a table (data, _versions, …) that is a link would make LanceDB read and write outside the home.
import { join } from "node:path";
import { dirEntries } from "../../shared/dir-entries.ts";
import { HomeLinkRefusedError, MOVE_IN_PLACE, refuseLink } from "../../shared/no-follow.ts";

/** Throw HomeLinkRefusedError for a link at `dir`, at a table folder in it, or at a folder directly in a table. */
export function refuseLinkedTables(dir: string): void {
  refuseLink(dir, MOVE_IN_PLACE);
  for (const table of dirEntries(dir)) {
    const path = join(dir, table.name);
    if (table.isSymbolicLink()) throw new HomeLinkRefusedError({ path, fix: MOVE_IN_PLACE });
    if (!table.isDirectory()) continue;
    for (const part of dirEntries(path))
      if (part.isSymbolicLink()) throw new HomeLinkRefusedError({ path: join(path, part.name), fix: MOVE_IN_PLACE });
  }
}

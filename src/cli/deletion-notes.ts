// What a deletion command says on stderr beyond its result line, and what its help says of shared archives.
import { describeAfterSome } from "../shared/describe-error.ts";

/** The deletion commands' help on a shared archive, where the guarantee stops at this host's files. */
export const SHARED_DELETION_HELP = `On a shared archive ([archive] url) the text leaves the archive and this host's
files at once; other hosts' copies go with their next command on the session
(or sessions), and PostgreSQL and the object store keep old copies until VACUUM
and their cleanup: docs/many-machines.md, "Deletion", says what stays where.
`;

/** The copies doctor --repair had kept aside, which a deletion removed as they held the removed text. */
export function keptCopiesNote(r: { keptCopiesRemoved?: string[] }): void {
  const copies = r.keptCopiesRemoved ?? [];
  if (copies.length === 0) return;
  const what =
    copies.length === 1
      ? "the copy doctor --repair had kept aside, as it"
      : `${copies.length} copies doctor --repair had kept aside, as they`;
  process.stderr.write(`memvoy: also removed ${what} may hold the removed text: ${copies.join(", ")}\n`);
}

/**
 * The vector half of a removal, after its result is printed. The text is already gone from the archive and the
 * files, and the deletions are recorded there; a vector store that cannot be reached now (an object store down)
 * leaves them to the next embedding drain. Says so on stderr; false then (the command exits 1).
 */
export async function purgeAfterRemoval(api: { purgeDeleted(): Promise<unknown> }): Promise<boolean> {
  try {
    const report = (await api.purgeDeleted()) as { keptRemovedRows?: number } | undefined;
    if ((report?.keptRemovedRows ?? 0) > 0)
      process.stderr.write(
        "memvoy: the vector table was made by an earlier memvoy: its data file keeps the removed messages' vectors (not their text) until `memvoy reindex` rebuilds it\n",
      );
    return true;
  } catch (err) {
    process.stderr.write(
      `memvoy: the removed messages' vectors are not deleted yet (${describeAfterSome(err)}): the next embedding drain deletes them\n`,
    );
    return false;
  }
}

// The errors of shared mode's set-up, apart so that every opener can raise them without loading it.
import { namedError } from "../../shared/errors.ts";

/** A command that does not run on a shared archive yet (it would read or write this host's files only). */
export const NotInSharedModeError = namedError<{ command: string }>(
  "NotInSharedModeError",
  "usage",
  (d) =>
    `${d.command} does not run on a shared archive yet ([archive] url or MEMVOY_ARCHIVE_URL is set): see docs/many-machines.md for what does`,
);
export type NotInSharedModeError = InstanceType<typeof NotInSharedModeError>;

/** A shared archive with vectors in the home: each host would hold a different part of them. */
export const SharedVectorsMissingError = namedError<{ home: string }>(
  "SharedVectorsMissingError",
  "input",
  () =>
    'the archive is shared ([archive] url) but the vectors are not: set [vectors] uri = "s3://bucket/prefix" in config.toml, so that every host sees the same vectors',
);

/**
 * A home that holds its own archive (.store/history.db, from before it was shared) never copied into the shared one:
 * in shared mode its session folders are caches of the shared archive, and would be overwritten or removed there
 * (summaries, records no archive holds).
 */
export const UncopiedHomeError = namedError<{ home: string; archive: string }>(
  "UncopiedHomeError",
  "input",
  (d) =>
    `${d.home} holds its own archive (.store/history.db), never copied into the shared archive at ${d.archive}; in shared mode its session folders would be taken for caches of the shared archive and overwritten. Run memvoy migrate-archive to copy it there first, or move .store aside to use this home as a new one on the shared archive`,
);

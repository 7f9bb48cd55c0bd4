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

// An object store that refuses this host's keys, or has no such bucket: a config error (exit 2) naming what to
// check, where a store that cannot be reached stays a runtime failure.
import { S3_KEY_VARIABLES } from "../../config/vectors-schema.ts";
import { namedError } from "../../shared/errors.ts";

export const VectorStoreRefusedError = namedError<{ label: string; reason: string; check: string }>(
  "VectorStoreRefusedError",
  "input",
  (d) => `cannot open the vector store ${d.label}: ${d.reason} (check ${d.check})`,
);

const KEYS = `the keys in ${S3_KEY_VARIABLES.accessKeyId.join(" / ")} and ${S3_KEY_VARIABLES.secretAccessKey.join(" / ")}, and ${S3_KEY_VARIABLES.sessionToken.join(" / ")} if the keys need one`;
const BUCKET = "the bucket in [vectors] uri, and [vectors] endpoint";

/** What each refusal of an S3-compatible server says to check (its error code, as briefly() puts it first). */
const REFUSALS: Record<string, string> = {
  InvalidAccessKeyId: KEYS,
  SignatureDoesNotMatch: KEYS,
  InvalidToken: KEYS,
  ExpiredToken: KEYS,
  AccessDenied: `${KEYS}, and that they may use the bucket`,
  "HTTP 403": `${KEYS}, and that they may use the bucket`,
  NoSuchBucket: BUCKET,
  InvalidBucketName: BUCKET,
};

/** The refusal `reason` (a store failure's brief text) stands for, or undefined for any other failure. */
export function storeRefusal(label: string, reason: string): InstanceType<typeof VectorStoreRefusedError> | undefined {
  const code = /^(HTTP 403|\w+)(?::| \(|$)/.exec(reason)?.[1];
  const check = code === undefined ? undefined : REFUSALS[code];
  return check === undefined ? undefined : new VectorStoreRefusedError({ label, reason, check });
}

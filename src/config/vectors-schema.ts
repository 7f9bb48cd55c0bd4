// [vectors]: where the message and error vectors live. Empty uri = the home's .store/lance (the default);
// s3://bucket/prefix = LanceDB on S3-compatible storage, keys from the environment only.
import * as v from "valibot";

/** The environment variables that hold the store's keys, memvoy's own names first. */
export const S3_KEY_VARIABLES = {
  accessKeyId: ["MEMVOY_S3_ACCESS_KEY_ID", "AWS_ACCESS_KEY_ID"],
  secretAccessKey: ["MEMVOY_S3_SECRET_ACCESS_KEY", "AWS_SECRET_ACCESS_KEY"],
  sessionToken: ["MEMVOY_S3_SESSION_TOKEN", "AWS_SESSION_TOKEN"],
} as const;

const fromEnvOnly = (names: readonly string[]) =>
  v.optional(v.never(`a secret is never read from config.toml: set ${names.join(" or ")} in the environment`));

const S3_FORM = /^s3:\/\/[^/\s]+(\/\S*)?$/;
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const bucketOf = (uri: string) => uri.slice("s3://".length).split("/")[0]!;

const s3Uri = v.pipe(
  v.string(),
  v.check((s) => s === "" || S3_FORM.test(s), 'expected "" (the home) or s3://bucket/prefix'),
  // A well-formed uri whose bucket S3 refuses (s3://b, s3://Team) is named as such, not as the wrong form.
  v.check(
    (s) => !S3_FORM.test(s) || BUCKET.test(bucketOf(s)),
    (issue) =>
      `the bucket name "${bucketOf(String(issue.input))}" is not one S3 allows: 3 to 63 lowercase letters, digits, dots and hyphens, starting and ending with a letter or digit`,
  ),
  // LanceDB parses it as a URL: the prefix would end at # or ?, and %xx would be decoded, so two such prefixes
  // (team#1 and team#2) would read and write the same vectors, message and error tables in one place.
  v.check(
    (s) => !/[#?%]/.test(s),
    "the prefix cannot hold #, ? or % (the object store's URL would cut it there or decode it)",
  ),
);

const endpoint = v.pipe(
  v.string(),
  v.check(
    (s) => s === "" || /^https?:\/\/(\[[0-9A-Fa-f:.]+\]|[^\s/@:[\]]+)(:\d{1,5})?(\/\S*)?$/.test(s),
    "expected http(s)://host[:port] with no user or password (a port in digits, if any)",
  ),
);

export const VectorsSchema = v.strictObject({
  uri: v.optional(s3Uri, ""),
  /** An S3-compatible server's URL; empty = AWS. */
  endpoint: v.optional(endpoint, ""),
  region: v.optional(v.string(), "us-east-1"),
  /** Plain http to the endpoint (test servers only). */
  allow_http: v.optional(v.boolean(), false),
  /** Path-style requests (bucket in the path), as most S3-compatible servers want; false = virtual-hosted. */
  path_style: v.optional(v.boolean(), true),
  /** A search sees other hosts' writes at most this long after they commit (LanceDB readConsistencyInterval). */
  read_consistency_ms: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(3_600_000)), 2000),
  /**
   * How long opening the store may wait for its first answer (the listing LanceDB makes when it connects): a
   * store that accepts connections and never answers fails here instead of after LanceDB's retries (minutes).
   */
  answer_timeout_ms: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1000), v.maxValue(600_000)), 15_000),
  access_key_id: fromEnvOnly(S3_KEY_VARIABLES.accessKeyId),
  secret_access_key: fromEnvOnly(S3_KEY_VARIABLES.secretAccessKey),
  session_token: fromEnvOnly(S3_KEY_VARIABLES.sessionToken),
});

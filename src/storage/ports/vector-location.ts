// Where the vectors live, resolved from [vectors] and the environment: the home's folder, or an S3 prefix
// with its storage options (keys from the environment only, never from config.toml).
import type { Config } from "../../config/schema.ts";
import { S3_KEY_VARIABLES } from "../../config/vectors-schema.ts";
import { namedError } from "../../shared/errors.ts";

export type VectorLocation =
  | { kind: "local"; dir: string }
  | {
      kind: "s3";
      uri: string;
      /** LanceDB's object-store options (keys included: never print this object). */
      storageOptions: Record<string, string>;
      /** Seconds after which a read checks for other writers' commits. */
      readConsistencySeconds: number;
      /** How long connecting may wait for the store's first answer, in ms; the endpoint named when it does not. */
      answer?: { timeoutMs: number; endpoint: string };
      /** The key values, for redaction of any text that may quote them. */
      secrets: string[];
    };

/** [vectors] names an S3 store but the environment has no keys for it. */
export const VectorKeysMissingError = namedError<{ uri: string; missing: string[] }>(
  "VectorKeysMissingError",
  "input",
  (d) => `vectors.uri is ${d.uri} but ${d.missing.join(" and ")} ${d.missing.length > 1 ? "are" : "is"} not set`,
);

type Env = Readonly<Record<string, string | undefined>>;

const first = (env: Env, names: readonly string[]) => names.map((n) => env[n]?.trim()).find((v) => v);

/** The configured location; `localDir` (the home's .store/lance) when [vectors] uri is empty. */
export function vectorLocation(config: Config["vectors"], localDir: string, env: Env = process.env): VectorLocation {
  if (!config.uri) return { kind: "local", dir: localDir };
  const accessKeyId = first(env, S3_KEY_VARIABLES.accessKeyId);
  const secretAccessKey = first(env, S3_KEY_VARIABLES.secretAccessKey);
  const missing: string[] = [];
  if (!accessKeyId) missing.push(S3_KEY_VARIABLES.accessKeyId.join(" / "));
  if (!secretAccessKey) missing.push(S3_KEY_VARIABLES.secretAccessKey.join(" / "));
  if (!accessKeyId || !secretAccessKey) throw new VectorKeysMissingError({ uri: config.uri, missing });
  const sessionToken = first(env, S3_KEY_VARIABLES.sessionToken);
  const storageOptions: Record<string, string> = {
    awsAccessKeyId: accessKeyId,
    awsSecretAccessKey: secretAccessKey,
    awsRegion: config.region,
    allowHttp: String(config.allow_http),
    virtualHostedStyleRequest: String(!config.path_style),
    // A request that gets no answer: a connection is given up after 5 s, and a failed request is tried at most
    // twice more (LanceDB's default is 10, each held to its 30 s request timeout, which is left as it is: a
    // data file's upload parts must not be cut on a slow link).
    connect_timeout: "5s",
    client_max_retries: "2",
  };
  if (config.endpoint) storageOptions.awsEndpoint = config.endpoint;
  if (sessionToken) storageOptions.awsSessionToken = sessionToken;
  return {
    kind: "s3",
    uri: config.uri.replace(/\/+$/, ""),
    storageOptions,
    readConsistencySeconds: config.read_consistency_ms / 1000,
    answer: { timeoutMs: config.answer_timeout_ms, endpoint: config.endpoint || "AWS S3" },
    secrets: [accessKeyId, secretAccessKey, ...(sessionToken ? [sessionToken] : [])],
  };
}

/** The location as it may be printed: the folder or the URI, never the options. */
export function describeLocation(location: VectorLocation): string {
  return location.kind === "local" ? location.dir : location.uri;
}

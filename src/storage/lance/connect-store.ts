// One LanceDB connection to a vector location: the home's folder (made private) or an S3 prefix with its
// storage options and a read-consistency interval, so that reads see other hosts' commits within a bound.
import type { Connection, Table } from "@lancedb/lancedb";
import { dirname } from "node:path";
import { ensureDirIn } from "../../shared/atomic-write.ts";
import { abandonWork } from "../../shared/abandoned-work.ts";
import { errorMessage } from "../../shared/errors.ts";
import { redactSecrets } from "../../shared/redact.ts";
import type { VectorLocation } from "../ports/vector-location.ts";
import { describeLocation } from "../ports/vector-location.ts";
import { loadLanceDb } from "./load-lancedb.ts";
import { privatizeTree } from "./private-modes.ts";
import { refuseLinkedTables } from "./linked-tables.ts";
import { storeRefusal } from "./store-refused.ts";

export interface StoreConnection {
  conn: Connection;
  /** The local folder to keep private after each commit; absent for object storage. */
  root?: string;
  /** The folder or the URI, for messages. */
  label: string;
  /** Text of a LanceDB failure, with the location's keys redacted. */
  reason(err: unknown): string;
}

/** What both LanceDB stores share: the connection, the folder kept private after commits, the failure text. */
export abstract class ConnectedStore {
  protected readonly conn: Connection;
  protected readonly dir?: string;

  protected constructor(protected readonly store: StoreConnection) {
    this.conn = store.conn;
    this.dir = store.root;
  }

  /** A local failure keeps its cause (a full disk reads as one); a remote one's may quote a request. */
  protected causeOf(err: unknown): { cause?: unknown } {
    return this.dir !== undefined ? { cause: err } : {};
  }

  protected committed(): void {
    if (this.dir !== undefined) privatizeTree(this.dir);
  }

  close(): void {
    try {
      this.conn.close();
    } catch {
      // Another call on this connection is still under way (LanceDB refuses to close under it): a store that
      // failed to open, with a listing in flight. Closing is the end of its use either way.
    }
  }
}

/** A location as named in messages: the folder or the URI. */
export function locationLabel(where: VectorLocation | string): string {
  return describeLocation(asLocation(where));
}

export function asLocation(location: VectorLocation | string): VectorLocation {
  return typeof location === "string" ? { kind: "local", dir: location } : location;
}

/** Connect; a failure is thrown as it came, the caller names it. */
export async function connectStore(where: VectorLocation | string): Promise<StoreConnection> {
  const location = asLocation(where);
  const { lancedb } = await loadLanceDb();
  const secrets = location.kind === "s3" ? location.secrets : [];
  const reason = (err: unknown) =>
    location.kind === "local" ? errorMessage(err) : redactSecrets(briefly(errorMessage(err)), secrets).text;
  const label = describeLocation(location);
  if (location.kind === "local") refuseLinkedTables(location.dir); // thrown as it is: exit 2, not a store failure
  try {
    if (location.kind === "local") {
      // LanceDB creates what is inside with the process umask; the folder itself is ours, and private. It and
      // its parent (the home's .store) are made one level at a time, never the home: a home deleted under a
      // running process stays deleted.
      ensureDirIn(dirname(location.dir));
      ensureDirIn(location.dir);
      // A kept table handle checks for other processes' commits on every read (a local check is cheap).
      const conn = await lancedb.connect(location.dir, { readConsistencyInterval: 0 });
      return { conn, root: location.dir, label, reason };
    }
    const connect = () =>
      lancedb.connect(location.uri, {
        storageOptions: location.storageOptions,
        readConsistencyInterval: location.readConsistencySeconds,
      });
    const conn = location.answer ? await answeredWithin(location.uri, connect, location.answer) : await connect();
    return { conn, label, reason };
  } catch (err) {
    if (err instanceof StoreSilentError) throw err;
    // The caller wraps this. A local failure keeps its errno (a full disk reads as one); a remote one is
    // rewritten so that no text of it carries a key, and refused keys or a missing bucket are a config error.
    if (location.kind === "local") throw err;
    throw storeRefusal(label, reason(err)) ?? new Error(reason(err));
  }
}

/** The object store took the connection but did not answer within the bound (a hung proxy, a blackholing firewall). */
class StoreSilentError extends Error {}

/** Stores given up on, by uri and endpoint, while the connect that got no answer is under way: they fail at once. */
const silentStores = new Map<string, StoreSilentError>();

/**
 * The connection once the store answered, or a failure naming the endpoint after `timeoutMs`: LanceDB's own
 * bounds (each request's timeout, its retries, the listing tried again) add up to minutes for a store that never
 * answers. A connection made after the bound is closed.
 */
async function answeredWithin(
  uri: string,
  connect: () => Promise<Connection>,
  answer: { timeoutMs: number; endpoint: string },
): Promise<Connection> {
  const key = `${uri} ${answer.endpoint}`;
  const known = silentStores.get(key);
  if (known) throw known;
  const connecting = connect();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const silent = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const seconds = Math.round(answer.timeoutMs / 100) / 10;
      reject(
        new StoreSilentError(
          `the object store at ${answer.endpoint} did not answer within ${seconds} s (check [vectors] endpoint and that nothing between this host and it, a proxy or a firewall, holds the connection; [vectors] answer_timeout_ms raises the wait)`,
        ),
      );
    }, answer.timeoutMs);
  });
  try {
    return await Promise.race([connecting, silent]);
  } catch (err) {
    if (err instanceof StoreSilentError) {
      abandonWork();
      silentStores.set(key, err);
      connecting
        .then(
          (late) => late.close(),
          () => {},
        )
        .finally(() => silentStores.delete(key));
    }
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The gist of an object-store failure: the server's error code and message, or the system's, in place of the
 * Rust debug dump around them (the endpoint stays: the URI names the request).
 */
export function briefly(text: string): string {
  const code = /<Code>([^<]+)<\/Code>/.exec(text)?.[1];
  const message = /<Message>([^<]+)<\/Message>/.exec(text)?.[1];
  const uri = /uri: Some\(([^)\s]+)\)/.exec(text)?.[1]?.replace(/\?.*$/, "");
  const at = uri ? ` (${uri})` : "";
  if (code) return `${code}${message ? `: ${message}` : ""}${at}`;
  const system = [...text.matchAll(/message: "([^"]+)"/g)].at(-1)?.[1];
  if (system) return `${system}${at}`;
  // A failed connect names its kind and the system's words (a host name that does not resolve: "dns error").
  const connect = /ConnectError\("([^"]+)"(?:[^"]*error: "([^"]+)")?/.exec(text);
  if (connect?.[1] === "dns error")
    return `the endpoint's host name does not resolve (${connect[2] ?? "dns error"})${at}`;
  if (connect) return `${connect[2] ?? connect[1]}${at}`;
  const status = /status: (\d{3})/.exec(text)?.[1];
  if (status) return `HTTP ${status}${at}`;
  const cut = text.split(/,? \/usr\/local\/cargo\/|\n/)[0]!;
  return cut.length > 300 ? `${cut.slice(0, 300)}…` : cut;
}

/**
 * The table `name`, or undefined when it does not exist. Opened by name, never by listing the store: an
 * object store's listing may lag or (on some S3-compatible servers) come back empty.
 */
export async function openIfExists(conn: Connection, name: string): Promise<Table | undefined> {
  try {
    return await conn.openTable(name);
  } catch (err) {
    if (/\bwas not found\b/i.test(errorMessage(err))) return undefined;
    throw err;
  }
}

// A statement sent on a pooled connection whose server process had already ended (the server restarted, or an
// idle session timed out, while this process was too busy to notice the close) is sent again on a new connection.
import type { SQL } from "bun";

/**
 * The server's own word that it ended the connection: an administrator's command or a shutdown (57P01), a crash
 * restart (57P02), an idle-session timeout (57P05). The statement it answers never committed, so sending it again
 * cannot apply it twice; a connection closed without a word could have committed, and is not retried.
 */
const ENDED_BY_SERVER = new Set(["57P01", "57P02", "57P05"]);
/** A pool's dead connections fail at once, one per attempt: a few more than one, then the failure stands. */
const ATTEMPTS = 4;

export function endedByServer(err: unknown): boolean {
  const e = err as { code?: unknown; errno?: unknown } | null;
  return e?.code === "ERR_POSTGRES_SERVER_ERROR" && typeof e.errno === "string" && ENDED_BY_SERVER.has(e.errno);
}

/** `run` again while it fails on a connection the server had ended. */
export async function againIfEnded<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (attempt >= ATTEMPTS || !endedByServer(err)) throw err;
    }
  }
}

/** sql.begin, begun again when its BEGIN met a connection the server had ended (`fn` never ran then). */
export async function beginAgainIfEnded<T>(sql: SQL, fn: (tx: SQL) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    let entered = false;
    try {
      return (await sql.begin((tx) => {
        entered = true;
        return fn(tx);
      })) as T;
    } catch (err) {
      if (entered || attempt >= ATTEMPTS || !endedByServer(err)) throw err;
    }
  }
}

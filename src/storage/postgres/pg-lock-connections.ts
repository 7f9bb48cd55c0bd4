// The connections that hold session locks, apart from the pool the work under a lock runs on: each is opened
// when a lock first needs it (a command that takes no lock opens none), kept for the next lock, closed with the
// archive. Bun's pool opens every one of its connections at its first query, so these are pools of one.
import type { SQL } from "bun";

export class LockConnections {
  readonly #idle: SQL[] = [];
  readonly #all: SQL[] = [];

  constructor(private readonly connect: () => SQL) {}

  /** Run `fn` on a connection no other lock holds; it goes back for the next lock after. */
  async with<T>(fn: (sql: SQL) => Promise<T>): Promise<T> {
    let sql = this.#idle.pop();
    if (!sql) {
      sql = this.connect();
      this.#all.push(sql);
    }
    try {
      return await fn(sql);
    } finally {
      this.#idle.push(sql);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.#all.splice(0).map((sql) => sql.close()));
    this.#idle.length = 0;
  }
}

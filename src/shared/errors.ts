// Base error classes; every error a user can see carries an exit code (2 = usage/config/input).

export abstract class MemvoyError extends Error {
  abstract readonly exitCode: 1 | 2;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Bad flags, unknown command, missing argument. */
export class UsageError extends MemvoyError {
  readonly exitCode: 1 | 2 = 2;
}

/** Input that cannot be accepted: bad session id, empty content, malformed JSONL, bad time. */
export class InputError extends MemvoyError {
  readonly exitCode: 1 | 2 = 2;
}

/** A runtime failure that is not the caller's fault (I/O, a remote service, a corrupt file). */
export class RuntimeFailure extends MemvoyError {
  readonly exitCode: 1 | 2 = 1;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * A named error class whose instances carry typed `data` (the facts of the failure). The message is composed
 * from the data once, at the definition, so throw sites pass facts rather than text.
 */
export function namedError<D extends object>(name: string, kind: "input" | "runtime", message: (data: D) => string) {
  const Base: typeof InputError = kind === "input" ? InputError : RuntimeFailure;
  const Named = class extends Base {
    constructor(
      readonly data: D,
      options?: { cause?: unknown },
    ) {
      super(message(data), options);
    }
  };
  Object.defineProperty(Named, "name", { value: name });
  return Named;
}

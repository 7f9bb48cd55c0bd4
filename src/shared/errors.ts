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

type Formatter = (data: never) => string;

/** Every named error's formatter, by name, filled as each error is defined: describeError reads it. */
const FORMATTERS = new Map<string, Formatter>();

/**
 * A named error class whose instances carry typed `data` (the facts of the failure). The user text is composed
 * from the data by the one formatter given here, registered by name for describeError; throw sites pass facts.
 */
export function namedError<D extends object>(
  name: string,
  kind: "usage" | "input" | "runtime",
  format: (data: D) => string,
) {
  const Base: typeof InputError = kind === "input" ? InputError : kind === "usage" ? UsageError : RuntimeFailure;
  const Named = class extends Base {
    static readonly format = format;
    constructor(
      readonly data: D,
      options?: { cause?: unknown },
    ) {
      super(format(data), options);
      // The given name, also for a subclass: a compiled binary's class names are minified.
      this.name = name;
    }
  };
  Object.defineProperty(Named, "name", { value: name });
  FORMATTERS.set(name, format as Formatter);
  return Named;
}

/** The user text of a named error, composed from its data by its registered formatter; undefined for any other value. */
export function formatNamedError(err: unknown): string | undefined {
  if (!(err instanceof MemvoyError)) return undefined;
  const data = (err as { data?: unknown }).data;
  const format = FORMATTERS.get(err.name) as ((data: unknown) => string) | undefined;
  return format && data !== null && typeof data === "object" ? format(data) : undefined;
}

/** The names of every named error defined so far (each module registers its own as it loads). */
export function namedErrorNames(): string[] {
  return [...FORMATTERS.keys()];
}

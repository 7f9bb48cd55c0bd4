// A value the memory returned at once or through a promise (the shared memory answers asynchronously).
export type Maybe<T> = T | Promise<T>;

/** `f` of the value: at once for a plain value (so the embedded memory stays synchronous), else on arrival. */
export function mapMaybe<T, U>(value: Maybe<T>, f: (v: T) => U): Maybe<U> {
  return value instanceof Promise ? value.then(f) : f(value);
}

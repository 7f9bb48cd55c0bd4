// The error of a MemoryApi call made after its close(), on either implementation.
import { namedError } from "../../shared/errors.ts";

export const MemoryClosedError = namedError<{ open: "openMemory" | "connectMemory" }>(
  "MemoryClosedError",
  "usage",
  (d) => `this memory was closed (close() was called): make a new one with ${d.open}`,
);
export type MemoryClosedError = InstanceType<typeof MemoryClosedError>;

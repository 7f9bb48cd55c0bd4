// A vector whose length differs from its table's dimension is refused before anything is written.
import { namedError } from "../../shared/errors.ts";

export const VectorDimensionError = namedError<{ got: number; expected: number }>(
  "VectorDimensionError",
  "runtime",
  (d) => `vector of ${d.got} dimensions for a ${d.expected}-dimensional table`,
);
export type VectorDimensionError = InstanceType<typeof VectorDimensionError>;

export function assertDimensions(rows: readonly { vector: Float32Array }[], expected: number): void {
  for (const r of rows)
    if (r.vector.length !== expected) throw new VectorDimensionError({ got: r.vector.length, expected });
}

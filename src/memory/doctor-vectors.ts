// doctor's read of the home's message vectors, beside its synchronous checks: every table is read through once,
// so that a data file or manifest gone or damaged (which semantic search and the drain fail on) is named with
// the way out. Vectors in an object store are not read through: that would fetch every object.
import { describeError } from "../shared/describe-error.ts";
import { HomeLinkRefusedError } from "../shared/no-follow.ts";
import type { DoctorFinding } from "./doctor-finding.ts";
import type { SemanticIndex } from "./embedding/semantic-index.ts";
import { mayHoldVectors } from "./vector-location.ts";

export async function vectorTableFindings(index: SemanticIndex): Promise<DoctorFinding[]> {
  if (index.ctx.config.vectors.uri || !mayHoldVectors(index.ctx)) return [];
  const problem = (err: unknown): DoctorFinding => ({ problem: describeError(err), manual: true });
  try {
    const store = await index.store();
    const out: DoctorFinding[] = (await store.damagedTables()).map((d) => problem(d.error));
    for (const t of await store.tables()) {
      try {
        await store.readThrough(t.embedderId);
      } catch (err) {
        out.push(problem(err));
      }
    }
    return out;
  } catch (err) {
    return err instanceof HomeLinkRefusedError ? [] : [problem(err)]; // a link there is named by checkHome
  }
}

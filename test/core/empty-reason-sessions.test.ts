// An empty one-session search names the other sessions holding the query, in words that agree with their count.
import { expect, test } from "bun:test";
import { explainEmpty, NO_TERMS, unheldPieceReason } from "../../src/search/empty-reason.ts";

const one = { session: "s1" };
const noFilter = () => false;

test("one other session, the look-up stopped at its many messages: 'at least 1 other session holds'", async () => {
  const at = { count: 1, more: true };
  expect(await explainEmpty(NO_TERMS, one, noFilter, () => at)).toBe(
    "no message in session s1 holds the query's terms (at least 1 other session does)",
  );
  expect(await explainEmpty("no close matches (nothing scored at least 0.1)", one, noFilter, () => at)).toBe(
    "no close matches in session s1 (nothing scored at least 0.1); at least 1 other session holds the query's terms",
  );
  expect(
    await unheldPieceReason(
      ["=>"],
      () => false,
      "s1",
      () => at,
    ),
  ).toBe(
    'no message in session s1 holds "=>" as written (at least 1 other session does; symbols, paths and code in a query match exactly)',
  );
});

test("several: 'at least 3 other sessions hold', '2 other sessions do'", async () => {
  expect(
    await explainEmpty("no close matches (nothing scored at least 0.1)", one, noFilter, () => ({
      count: 3,
      more: true,
    })),
  ).toBe(
    "no close matches in session s1 (nothing scored at least 0.1); at least 3 other sessions hold the query's terms",
  );
  expect(await explainEmpty(NO_TERMS, one, noFilter, () => ({ count: 2, more: false }))).toBe(
    "no message in session s1 holds the query's terms (2 other sessions do)",
  );
});

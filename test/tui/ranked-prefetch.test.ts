// The search pane's ranked search starts during the typing rest and shows when the rest ends; a key pressed
// meanwhile aborts it without marking the mode unavailable, and so does a failure keyword matching shares.
// Driven through SearchScreen on a real home.
import { afterAll, describe, expect, test } from "bun:test";
import type { HomeMemory } from "../../src/app/memory-api.ts";
import type { SearchOptions } from "../../src/tui/api-types.ts";
import type { AppContext, Key } from "../../src/tui/app/app-context.ts";
import { SEARCH_PREFETCH_MS, SEARCH_RANK_MS, SearchScreen } from "../../src/tui/app/search-screen.ts";
import { openTemp, removeTempHomes } from "../fixture/home.ts";

afterAll(removeTempHomes);

interface Call {
  options: SearchOptions;
  at: number;
}

/** The real API, with every search call recorded (the call still goes to the API). */
function recording(api: HomeMemory): { api: HomeMemory; calls: Call[] } {
  const calls: Call[] = [];
  const search = (options: SearchOptions) => {
    calls.push({ options, at: performance.now() });
    return api.search(options);
  };
  return { api: new Proxy(api, { get: (t, p) => (p === "search" ? search : Reflect.get(t, p, t)) }), calls };
}

function screenOn(api: HomeMemory) {
  const rendered: number[] = [];
  const pending: Promise<unknown>[] = [];
  const app = {
    api,
    render: () => rendered.push(performance.now()),
    guardAsync: (p: Promise<unknown>) => pending.push(p),
  } as unknown as AppContext;
  return { screen: new SearchScreen(app), rendered, pending };
}

const typeText = (screen: SearchScreen, text: string) => {
  for (const ch of text) screen.handleKey(ch, { name: ch, full: ch } as Key);
};

async function until(ok: () => boolean, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(5);
  }
}

const ranked = (c: Call) => c.options.order !== "newest";

describe("ranked search during the typing rest", () => {
  const { api: real } = openTemp({ drain: "off" });
  real.add(
    "s",
    Array.from({ length: 30 }, (_, i) => ({
      role: i % 2 ? ("assistant" as const) : ("user" as const),
      content: `Deploy note ${i}: the server rollout, canary checks and the rollback plan.`,
    })),
  );
  afterAll(() => real.close());

  test("starts before the rest ends, is not asked twice, and shows only once the rest is over", async () => {
    await real.drainEmbeddings();
    const { api, calls } = recording(real);
    const { screen, pending } = screenOn(api);
    screen.open(undefined);
    // When the rest ends (the ranked request is made).
    let restEnded = Number.POSITIVE_INFINITY;
    const run = screen.run.bind(screen);
    screen.run = (quick = false) => {
      if (!quick) restEnded = Math.min(restEnded, performance.now());
      run(quick);
    };
    const typed = performance.now();
    typeText(screen, "deploy server");
    await until(() => screen.state.answered !== undefined && !screen.state.answered.newest, "the ranked answer");
    const shown = performance.now();
    await Promise.all(pending);
    const rankedCalls = calls.filter(ranked);
    expect(rankedCalls).toHaveLength(1);
    expect(rankedCalls[0]!.options).toMatchObject({ query: "deploy server", match: "hybrid" });
    // Timers never fire early: asked from the prefetch timer, shown no sooner than the rest's end.
    const quickAt = calls.find((c) => !ranked(c))!.at;
    expect(rankedCalls[0]!.at - quickAt).toBeGreaterThanOrEqual(SEARCH_PREFETCH_MS - 2);
    expect(rankedCalls[0]!.at).toBeLessThan(restEnded);
    expect(shown - typed).toBeGreaterThanOrEqual(SEARCH_RANK_MS);
    expect(screen.state.hits.length).toBeGreaterThan(0);
    expect(screen.state.unavailable.size).toBe(0);
    screen.close();
  }, 60_000);

  test("a key pressed while it runs aborts it; the mode stays available and the answer is the new query's", async () => {
    const { api, calls } = recording(real);
    const { screen, pending } = screenOn(api);
    screen.open(undefined);
    typeText(screen, "rollback");
    await until(() => calls.some(ranked), "the ranked search to start");
    const first = calls.find(ranked)!;
    typeText(screen, " plan");
    expect(first.options.signal?.aborted).toBe(true);
    await until(() => screen.state.answered?.query === "rollback plan" && !screen.state.answered.newest, "the answer");
    await Promise.all(pending);
    expect(screen.state.unavailable.size).toBe(0);
    expect(screen.state.error).toBeUndefined();
    expect(screen.state.answered?.match).toBe("hybrid");
    const last = calls.filter(ranked).at(-1)!;
    expect(last.options.query).toBe("rollback plan");
    expect(last.options.signal?.aborted).toBe(false);
    screen.close();
  }, 60_000);

  test("a failure keyword matching shares (the archive down) leaves the mode to be tried again once it answers", async () => {
    await real.drainEmbeddings();
    let down = true;
    const flaky = new Proxy(real, {
      get: (t, p) =>
        p === "search"
          ? (o: SearchOptions) =>
              down ? Promise.reject(new Error("the archive failed: connection refused")) : t.search(o)
          : Reflect.get(t, p, t),
    });
    const { api, calls } = recording(flaky);
    const { screen, pending } = screenOn(api);
    screen.open(undefined);
    typeText(screen, "deploy");
    // The ranked hybrid search fails, falls back to keyword matching, and that fails as well.
    await until(() => calls.some((c) => ranked(c) && c.options.match === "keyword"), "the keyword fallback");
    await until(() => screen.state.error !== undefined && !screen.state.busy, "the failure on screen");
    expect(screen.state.error).toContain("connection refused");
    expect(screen.state.unavailable.size).toBe(0);
    expect(screen.state.modeLabel()).toBe("hybrid");
    down = false;
    typeText(screen, " server");
    await until(() => screen.state.answered?.newest === false, "the ranked answer");
    await Promise.all(pending);
    expect(screen.state.answered).toEqual({ query: "deploy server", match: "hybrid", newest: false });
    expect(screen.state.error).toBeUndefined();
    screen.close();
  }, 60_000);
});

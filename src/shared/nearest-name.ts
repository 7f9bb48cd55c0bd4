// The known name a mistyped one most likely means, for "did you mean" hints.

/**
 * The name (a flag, a command, a config key) `name` most likely misspells (--sesion, --Session, --limt,
 * serach): one edit away, or two for longer names; none when two are equally near. `names` are lower case.
 */
export function nearestName(name: string, names: readonly string[]): string | undefined {
  const typed = name.toLowerCase();
  let best: string | undefined;
  let bestDistance = typed.length >= 5 ? 2 : 1;
  let tie = false;
  for (const f of names) {
    const d = editDistance(typed, f);
    if (d < bestDistance || (best === undefined && d === bestDistance)) [best, bestDistance, tie] = [f, d, false];
    else if (d === bestDistance) tie = true;
  }
  return tie ? undefined : best;
}

/** Insertions, deletions, substitutions and swaps of two neighbours (optimal string alignment). */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  return d[a.length]![b.length]!;
}

// Statistics of alternating runs: variants take turns, the order rotating each round, and every ratio is
// taken between measurements of the same round, so a burst of load from elsewhere hits both sides of it.

/** The median of numbers (the mean of the middle two for an even count). */
export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** `{ median, min, max, n }` of numbers. */
export function summary(values) {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values), n: values.length };
}

/** `list` rotated left by `by` places: round r runs the variants starting from the r-th. */
export function rotate(list, by) {
  const k = by % list.length;
  return [...list.slice(k), ...list.slice(0, k)];
}

/**
 * Runs `measure(variant, round)` for every variant in every round, in rotated order, after `warmup`
 * unrecorded rounds. Resolves with the measurements by variant, index = round.
 */
export async function alternate(variants, rounds, measure, { warmup = 1 } = {}) {
  const by = Object.fromEntries(variants.map((v) => [v, []]));
  for (let r = -warmup; r < rounds; r++) {
    for (const v of rotate(variants, r + warmup)) {
      const value = await measure(v, r);
      if (r >= 0) by[v].push(value);
    }
  }
  return by;
}

/** Round-by-round ratios a[i] / b[i], summarised. */
export function pairRatios(a, b) {
  return summary(a.map((x, i) => x / b[i]));
}

/** Round-by-round differences a[i] - b[i], summarised. */
export function pairDiffs(a, b) {
  return summary(a.map((x, i) => x - b[i]));
}

/**
 * A row of the table: `a` against its floor `b` (numbers of the same rounds, in `unit`), their ratios
 * pair by pair, and whether the median ratio meets `goal` (when there is one).
 */
export function compare(figure, a, b, goal, unit) {
  const ratio = pairRatios(a, b);
  return {
    figure,
    unit,
    value: summary(a),
    floor: summary(b),
    ratio,
    goal,
    ok: goal === undefined ? undefined : ratio.median <= goal,
  };
}

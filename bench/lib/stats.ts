// Percentiles by nearest rank: with ~300 samples p99 is the third-slowest one, a real
// observation rather than an interpolation between two.

export interface Summary {
  count: number;
  min: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}

export function round(x: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

export function summarize(samples: readonly number[]): Summary {
  const mean = samples.reduce((s, x) => s + x, 0) / (samples.length || 1);
  return {
    count: samples.length,
    min: round(Math.min(...samples)),
    p50: round(percentile(samples, 50)),
    p90: round(percentile(samples, 90)),
    p99: round(percentile(samples, 99)),
    max: round(Math.max(...samples)),
    mean: round(mean),
  };
}

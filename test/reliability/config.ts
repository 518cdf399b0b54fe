// Robustness suites: a seeded subset in CI, the full variants behind PARTNER_RELIABILITY=full
// (docs/reliability.md). PARTNER_RELIABILITY_SEED replays a run.

export const FULL = process.env.PARTNER_RELIABILITY === 'full';
export const SEED = Number(process.env.PARTNER_RELIABILITY_SEED ?? 20_261_123);

/** `ci` in the default run, `full` under PARTNER_RELIABILITY=full. */
export function scale<T>(ci: T, full: T): T {
  return FULL ? full : ci;
}

/** A small deterministic PRNG (mulberry32) for choices outside fast-check. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

/** Runs `fn` over `items` with at most `n` at once. */
export async function pool<T>(items: readonly T[], n: number, fn: (item: T, i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i]!, i);
      }
    }),
  );
}

export function mode(): string {
  return `${FULL ? 'full' : 'ci'} run, seed ${SEED}`;
}

// Small wording helpers for messages people read.

/** `1 request`, `3 requests`, `2 retries` (with the irregular plural given). */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/** A wait as a person reads it: `800 ms`, `20 s`, `1 min 30 s`. */
export function waitText(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
}

// Small wording helpers for messages people read.

/** `1 request`, `3 requests`, `2 retries` (with the irregular plural given). */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

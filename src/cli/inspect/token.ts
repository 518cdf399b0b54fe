import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A fresh per-run token: 32 random bytes, URL-safe. */
export function newInspectToken(): string {
  return randomBytes(32).toString('base64url');
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Constant time whatever the lengths: both sides are hashed to 32 bytes first. */
export function tokenMatches(expected: string, given: string | undefined): boolean {
  if (given === undefined || given === '') return false;
  return timingSafeEqual(digest(expected), digest(given));
}

import { describe, expect, it } from 'vitest';
import { maskSecret } from '../mask.js';
import { cellText, isIsoDateTime, relativeTime, shortAge } from './format.js';

describe('relativeTime', () => {
  const now = Date.parse('2025-01-01T12:00:00Z');
  it('speaks human', () => {
    expect(relativeTime('2025-01-01T11:57:00Z', now)).toBe('3 minutes ago');
    expect(relativeTime('2025-01-01T14:00:00Z', now)).toBe('in 2 hours');
    expect(relativeTime('2025-01-01T11:59:55Z', now)).toBe('just now');
    expect(relativeTime('2024-12-29T12:00:00Z', now)).toBe('3 days ago');
  });
});

describe('shortAge', () => {
  const now = Date.parse('2025-01-01T12:00:00Z');
  it('fits a narrow column', () => {
    expect(shortAge('2025-01-01T11:59:55Z', now)).toBe('now');
    expect(shortAge('2025-01-01T11:59:15Z', now)).toBe('45s');
    expect(shortAge('2025-01-01T11:46:00Z', now)).toBe('14m');
    expect(shortAge('2025-01-01T09:30:00Z', now)).toBe('2h');
    expect(shortAge('2024-12-29T12:00:00Z', now)).toBe('3d');
    expect(shortAge('2025-01-01T12:05:00Z', now)).toBe('in 5m');
    expect(shortAge('not a time', now)).toBe('');
  });
});

describe('isIsoDateTime', () => {
  it('accepts offsets and rejects plain text', () => {
    expect(isIsoDateTime('2025-01-01T12:00:00.123Z')).toBe(true);
    expect(isIsoDateTime('2025-01-01T12:00:00+07:00')).toBe(true);
    expect(isIsoDateTime('2025-01-01')).toBe(false);
    expect(isIsoDateTime('yesterday')).toBe(false);
  });
});

describe('cellText', () => {
  it('joins arrays, truncates, and strips tabs and newlines', () => {
    expect(cellText(['a', 'b'])).toBe('a, b');
    expect(cellText('x\ty\nz')).toBe('x y z');
    expect(cellText('abcdef', 4)).toBe('abc…');
    expect(cellText(null)).toBe('');
  });
});

describe('maskSecret', () => {
  it('keeps the prefix and the last four characters only', () => {
    expect(maskSecret('sk_Zq1nFshopd6rrPGflUIPd9nwu6_x9f2')).toBe('sk_…x9f2');
    expect(maskSecret('short')).toBe('…');
    expect(maskSecret(undefined)).toBe('');
  });
});

import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from './duration.js';

describe('parseDuration: the one grammar of every duration flag and the retry schedule', () => {
  it('reads one or more <number><unit> parts, summed', () => {
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('45s')).toBe(45_000);
    expect(parseDuration('30m')).toBe(30 * 60_000);
    expect(parseDuration('2h')).toBe(7_200_000);
    expect(parseDuration('1d')).toBe(86_400_000);
    expect(parseDuration('1h30m')).toBe(90 * 60_000);
    expect(parseDuration('1m 30s')).toBe(90_000);
    expect(parseDuration('1.5s')).toBe(1500);
    expect(parseDuration(' 0s ')).toBe(0);
  });
  it('a bare number means seconds (the setting of a conflict between the old parsers)', () => {
    expect(parseDuration('900')).toBe(900_000);
    expect(parseDuration('0.5')).toBe(500);
    expect(parseDuration('0')).toBe(0);
  });
  it('refuses anything else', () => {
    for (const bad of ['', 'm', '30 minutes', '-5m', '5m junk', '1e3', '1w', 's30', '1,5s', '.5s'])
      expect(parseDuration(bad), bad).toBeUndefined();
  });
});

describe('formatDuration: the one way a duration is shown', () => {
  it('milliseconds below a second, whole seconds, then minutes and hours', () => {
    expect(formatDuration(0)).toBe('0 ms');
    expect(formatDuration(800.4)).toBe('800 ms');
    expect(formatDuration(1000)).toBe('1 s');
    expect(formatDuration(1499)).toBe('1 s');
    expect(formatDuration(20_000)).toBe('20 s');
    expect(formatDuration(60_000)).toBe('1 min');
    expect(formatDuration(90_000)).toBe('1 min 30 s');
    expect(formatDuration(7_200_000)).toBe('2 h');
    expect(formatDuration(7_500_000)).toBe('2 h 5 min');
  });
});

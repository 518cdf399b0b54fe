import { describe, expect, it } from 'vitest';
import { money, statusName } from '../../src/inspect-ui/format.js';

// Pure parts of the inspect page that run without a browser.

describe('the page’s formatting', () => {
  it('names statuses as the dictionary does', () => {
    expect(statusName(1)).toBe('PLACED (1)');
    expect(statusName(4)).toBe('READY (4)');
    expect(statusName(11)).toBe('VOID (11)');
    expect(statusName(99)).toBe('99');
  });

  it('shows money in the currency, and the decimal string itself when it is not a number', () => {
    expect(money('45000.00', 'IDR')).toMatch(/45[,.]000/);
    expect(money('abc', 'IDR')).toBe('abc');
    expect(money('12.50', '')).toBe('12.50');
  });
});

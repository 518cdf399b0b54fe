import { describe, expect, it } from 'vitest';
import { STATUS_CODES } from '../../src/contract/order-statuses.js';
import { money, statusName, STATUS_CODES as PAGE_CODES } from '../../src/inspect-ui/format.js';

// Pure parts of the inspect page that run without a browser.

describe('the page’s formatting', () => {
  it('names statuses as the dictionary does', () => {
    expect(PAGE_CODES).toEqual(STATUS_CODES);
    expect(statusName(4)).toBe('READY (4)');
    expect(statusName(99)).toBe('99');
  });

  it('shows money in the currency, and the decimal string itself when it is not a number', () => {
    expect(money('45000.00', 'IDR')).toMatch(/45[,.]000/);
    expect(money('abc', 'IDR')).toBe('abc');
    expect(money('12.50', '')).toBe('12.50');
  });
});

import { describe, expect, it } from 'vitest';
import { parseDuration, parseStockPair } from './overrides.js';

describe('parseDuration', () => {
  it('reads compound durations', () => {
    expect(parseDuration('30m')).toBe(30 * 60_000);
    expect(parseDuration('1h30m')).toBe(90 * 60_000);
    expect(parseDuration('45s')).toBe(45_000);
    expect(parseDuration('1d')).toBe(86_400_000);
  });
  it('rejects anything else', () => {
    for (const bad of ['', '30', 'm', '30 minutes', '-5m', '0m', '5m junk'])
      expect(parseDuration(bad), bad).toBeUndefined();
  });
});

describe('parseStockPair', () => {
  it('reads SKU=N and SKU=null', () => {
    expect(parseStockPair('SKU-NG=12')).toEqual({ partner_item_id: 'SKU-NG', stock: 12 });
    expect(parseStockPair('A=B=0')).toEqual({ partner_item_id: 'A=B', stock: 0 });
    expect(parseStockPair('X=null')).toEqual({ partner_item_id: 'X', stock: null });
  });
  it('names the bad pair', () => {
    expect(() => parseStockPair('SKU')).toThrow(/SKU=N/);
    expect(() => parseStockPair('SKU=-1')).toThrow(/whole number/);
    expect(() => parseStockPair('=3')).toThrow(/SKU=N/);
  });
});

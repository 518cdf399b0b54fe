import { describe, expect, it } from 'vitest';
import { STATUS_ID } from '../../contract/order-statuses.js';
import { PARTNER_TARGET_IDS, parseDuration, parseStockPair, partnerTarget } from './overrides.js';

describe('partnerTarget', () => {
  it('knows the ids of the dictionary', () => {
    for (const [code, id] of Object.entries(PARTNER_TARGET_IDS))
      expect(STATUS_ID[code as keyof typeof STATUS_ID]).toBe(id);
  });
  it('takes a code in any case or an id, and nothing a partner may not set', () => {
    expect(partnerTarget('ready', '--status')).toBe('READY');
    expect(partnerTarget('3', '--status')).toBe(3);
    expect(() => partnerTarget('PLACED', '--status')).toThrow(/--status must be a status a partner may set/);
    expect(() => partnerTarget('11', '--status')).toThrow(/ACCEPTED, READY, DELIVERED, CANCELLED/);
  });
});

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

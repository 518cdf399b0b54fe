import { describe, expect, it } from 'vitest';
import { STATUS_ID } from '../../contract/order-statuses.js';
import { PARTNER_TARGET_IDS, parseStockPair, partnerTarget } from './overrides.js';

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

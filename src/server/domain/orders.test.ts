import { describe, expect, it } from 'vitest';
import { STATUS_CODES, type StatusCode } from '../../contract/order-statuses.js';
import { PARTNER_TARGETS as DOCUMENTED_TARGETS, toStatusCode } from '../../contract/schemas/orders.js';
import { catalogueIn, convertPrice, THEMES, themeFor } from './order-simulation.js';
import {
  DAY_MS,
  PARTNER_TARGETS,
  allowedFrom,
  decide,
  formatMinor,
  generateCartLines,
  isTerminal,
  nextUpdatedMs,
  priceCart,
  resolveRange,
  seededRng,
  toMinor,
} from './orders.js';

// The expected matrix, written out independently of PARTNER_TRANSITIONS (docs/orders.md):
// ACCEPTED ← PLACED, PENDING, SCHEDULED · READY ← ACCEPTED · DELIVERED ← READY, PICKED UP ·
// CANCELLED ← any non-terminal. Terminal: DELIVERED, CANCELLED, VOID.
const ALLOWED = new Set([
  'PLACED→ACCEPTED',
  'PENDING→ACCEPTED',
  'SCHEDULED→ACCEPTED',
  'ACCEPTED→READY',
  'READY→DELIVERED',
  'PICKED UP→DELIVERED',
  'PLACED→CANCELLED',
  'ACCEPTED→CANCELLED',
  'READY→CANCELLED',
  'SCHEDULED→CANCELLED',
  'DRIVER ASSIGNED→CANCELLED',
  'DRIVER ARRIVED→CANCELLED',
  'PICKED UP→CANCELLED',
  'PENDING→CANCELLED',
]);

describe('partner transition table', () => {
  it('has 11 statuses, 121 pairs to check', () => {
    expect(STATUS_CODES).toHaveLength(11);
  });

  it('its targets are the ones the OpenAPI document offers on the status patch', () => {
    expect([...PARTNER_TARGETS].sort()).toEqual([...DOCUMENTED_TARGETS].sort());
  });

  for (const from of STATUS_CODES) {
    for (const to of STATUS_CODES) {
      const expected = ALLOWED.has(`${from}→${to}`);
      it(`${from} → ${to}: ${expected ? 'allowed' : '409'}`, () => {
        const d = decide(from, to);
        expect(d.ok).toBe(expected);
        if (!d.ok) {
          expect(d.from).toBe(from);
          expect(d.to).toBe(to);
          const allowed = STATUS_CODES.filter((t) => ALLOWED.has(`${from}→${t}`));
          expect([...d.allowed].sort()).toEqual([...allowed].sort());
        }
      });
    }
  }

  it('terminal states allow nothing; every other state allows CANCELLED', () => {
    for (const s of STATUS_CODES) {
      if (['DELIVERED', 'CANCELLED', 'VOID'].includes(s)) {
        expect(isTerminal(s)).toBe(true);
        expect(allowedFrom(s)).toEqual([]);
      } else {
        expect(isTerminal(s)).toBe(false);
        expect(allowedFrom(s)).toContain('CANCELLED');
      }
    }
  });

  it('lists allowed targets in table order', () => {
    expect(allowedFrom('PLACED')).toEqual(['ACCEPTED', 'CANCELLED']);
    expect(allowedFrom('PICKED UP')).toEqual(['DELIVERED', 'CANCELLED']);
    expect(allowedFrom('READY')).toEqual(['DELIVERED', 'CANCELLED']);
  });
});

describe('status references', () => {
  it('accept ids and codes, case-insensitively, with _ or - for spaces', () => {
    expect(toStatusCode(4)).toBe('READY');
    expect(toStatusCode('4')).toBe('READY');
    expect(toStatusCode('ready')).toBe('READY');
    expect(toStatusCode('PICKED UP')).toBe('PICKED UP');
    expect(toStatusCode('picked_up')).toBe('PICKED UP');
    expect(toStatusCode('driver-assigned')).toBe('DRIVER ASSIGNED');
    for (const [i, c] of STATUS_CODES.entries()) expect(toStatusCode(i + 1)).toBe(c as StatusCode);
  });
  it('reject anything else', () => {
    for (const v of [0, 12, 2.5, '', 'PREPARING', 'DISPATCHED', null, true, {}])
      expect(toStatusCode(v)).toBeUndefined();
  });
});

describe('updated_at', () => {
  it('strictly increases, even within one millisecond or when the clock steps back', () => {
    expect(nextUpdatedMs(1000, 2000)).toBe(2000);
    expect(nextUpdatedMs(1000, 1000)).toBe(1001);
    expect(nextUpdatedMs(1000, 900)).toBe(1001);
  });
});

describe('created_at range', () => {
  const now = Date.parse('2024-05-10T12:00:00Z');
  it('defaults to the last 24 h', () => {
    expect(resolveRange(undefined, undefined, now)).toEqual({ ok: true, fromMs: now - DAY_MS, toMs: now });
  });
  it('only `from`: up to now, or to `from` when it is ahead of the clock', () => {
    expect(resolveRange(now - 1000, undefined, now)).toEqual({ ok: true, fromMs: now - 1000, toMs: now });
    expect(resolveRange(now + 5000, undefined, now)).toEqual({
      ok: true,
      fromMs: now + 5000,
      toMs: now + 5000,
    });
  });
  it('only `to`: the 24 h before it', () => {
    expect(resolveRange(undefined, now - DAY_MS, now)).toEqual({
      ok: true,
      fromMs: now - 2 * DAY_MS,
      toMs: now - DAY_MS,
    });
  });
  it('90 days exactly is fine; a millisecond more → request_invalid_range', () => {
    expect(resolveRange(now - 90 * DAY_MS, now, now).ok).toBe(true);
    expect(resolveRange(now - 90 * DAY_MS - 1, now, now)).toMatchObject({
      ok: false,
      code: 'request_invalid_range',
    });
    expect(resolveRange(now - 91 * DAY_MS, undefined, now)).toMatchObject({
      ok: false,
      code: 'request_invalid_range',
    });
  });
  it('`from` after `to` → request_invalid; equal is fine', () => {
    expect(resolveRange(now, now - 1, now)).toMatchObject({ ok: false, code: 'request_invalid' });
    expect(resolveRange(now, now, now).ok).toBe(true);
  });
});

describe('money', () => {
  it('parses to minor units and formats with the currency places', () => {
    expect(toMinor('45000', 0)).toBe(45000n);
    expect(toMinor('45000.00', 0)).toBe(45000n);
    expect(toMinor('120.5', 2)).toBe(12050n);
    expect(formatMinor(12050n, 2)).toBe('120.50');
    expect(formatMinor(5n, 2)).toBe('0.05');
    expect(formatMinor(45000n, 0)).toBe('45000');
    expect(formatMinor(-5n, 2)).toBe('-0.05');
  });
  it('refuses amounts finer than the currency or not decimal', () => {
    expect(() => toMinor('0.005', 2)).toThrow(/decimal places/);
    expect(() => toMinor('1.5', 0)).toThrow(/decimal places/);
    expect(() => toMinor('1e3', 2)).toThrow();
    expect(() => toMinor('-1', 2)).toThrow();
  });
  it('is exact where floats are not (0.1 + 0.2)', () => {
    const p = priceCart(
      [
        { item_id: 1, partner_item_id: 'A', title: 'A', quantity: 1, unit_price: '0.10' },
        { item_id: 2, partner_item_id: 'B', title: 'B', quantity: 1, unit_price: '0.20' },
      ],
      2,
    );
    expect(p).toMatchObject({ total: '0.30' });
  });
  it('prices lines: quantity × (unit + Σ modifier qty × price), total = Σ lines', () => {
    const p = priceCart(
      [
        {
          item_id: 1,
          partner_item_id: 'NASGOR',
          title: 'Nasi Goreng',
          quantity: 2,
          unit_price: '45000',
          modifiers: [
            { item_id: 9, title: 'Egg', quantity: 1, unit_price: '5000' },
            { item_id: 8, title: 'Sambal', quantity: 2, unit_price: '3000' },
          ],
        },
        { item_id: 2, partner_item_id: 'TEH', title: 'Es Teh', quantity: 3, unit_price: '10000.00' },
      ],
      0,
    );
    if ('issues' in p) throw new Error('unexpected issues');
    expect(p.cart[0]!.total).toBe('112000');
    expect(p.cart[1]).toMatchObject({ unit_price: '10000', total: '30000', modifiers: [] });
    expect(p.total).toBe('142000');
  });
  it('reports a given line total that does not add up, and amounts that do not fit', () => {
    const p = priceCart(
      [
        { item_id: 1, partner_item_id: 'A', title: 'A', quantity: 2, unit_price: '1.50', total: '3.50' },
        { item_id: 2, partner_item_id: 'B', title: 'B', quantity: 1, unit_price: '1.505' },
      ],
      2,
    );
    expect('issues' in p && p.issues.map((i) => i.path)).toEqual([
      [0, 'total'],
      [1, 'unit_price'],
    ]);
  });
});

describe('generated carts', () => {
  it('are deterministic for a seed, respect group min/max and add up', () => {
    for (const theme of THEMES) {
      for (const currency of ['IDR', 'THB', 'USD', 'JPY']) {
        const items = catalogueIn(theme, currency);
        const a = generateCartLines(items, 4, seededRng(7));
        expect(generateCartLines(items, 4, seededRng(7))).toEqual(a);
        expect(a).toHaveLength(4);
        expect(new Set(a.map((l) => l.item_id)).size).toBe(4);
        for (const line of a) {
          const item = items.find((i) => i.item_id === line.item_id)!;
          for (const g of item.groups ?? []) {
            const chosen = line.modifiers!.filter((m) =>
              g.options.some((o) => o.item_id === m.item_id),
            ).length;
            expect(chosen).toBeGreaterThanOrEqual(g.min);
            expect(chosen).toBeLessThanOrEqual(g.max);
          }
        }
        const decimals = currency === 'IDR' || currency === 'JPY' ? 0 : 2;
        const p = priceCart(a, decimals);
        if ('issues' in p) throw new Error(JSON.stringify(p.issues));
        const sum = p.cart.reduce((s, l) => s + toMinor(l.total, decimals), 0n);
        expect(formatMinor(sum, decimals)).toBe(p.total);
      }
    }
  });
  it('convert sample prices in integer minor units, rounded to a menu step', () => {
    expect(convertPrice('6.50', 'USD', 'IDR')).toBe('104000');
    expect(convertPrice('6.50', 'USD', 'THB')).toBe('234.00');
    expect(convertPrice('45000', 'IDR', 'IDR')).toBe('45000');
    expect(convertPrice('0', 'IDR', 'THB')).toBe('0.00');
  });
  it('pick a theme by brand title, else by country', () => {
    expect(themeFor('Kopi Kita', 'ID').key).toBe('coffee');
    expect(themeFor('Khanom Waan Desserts', 'TH').key).toBe('thai-desserts');
    expect(themeFor('Anything', 'TH').key).toBe('thai-noodles');
    expect(themeFor('Anything', 'JP').key).toBe('burgers');
  });
});

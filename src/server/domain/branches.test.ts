import { describe, expect, it } from 'vitest';
import { checkReferences, composeBranch, openDays, withDefaults } from './branches.js';

const day = (s = 900, e = 2100, disabled = false) => ({ disabled, slots: [{ startTime: s, endTime: e }] });
const week = {
  '0': day(1000, 1400, true),
  '1': day(),
  '2': day(800, 2200),
  '3': day(),
  '4': day(),
  '5': day(),
  '6': day(),
};

describe('branch rules', () => {
  it('derives open days, mask and opening hours from the schedule', () => {
    expect(openDays(week)).toEqual([1, 2, 3, 4, 5, 6]);
    const f = withDefaults({
      title: 'T',
      brand_ids: [1],
      country_id: 1,
      city_id: 101,
      currency_id: 1,
      available_times: week,
    });
    expect(f.availability_mask).toBe(0b1111110);
    expect(f.day_availability).toEqual([1, 2, 3, 4, 5, 6]);
    expect(f.opening_time).toBe(800);
    expect(f.closing_time).toBe(2200);
    expect(f.time_zone).toBe('Asia/Jakarta');
  });

  it('keeps given fields over defaults', () => {
    const f = withDefaults({
      available_times: week,
      country_id: 1,
      city_id: 101,
      availability_mask: 1,
      is_busy: true,
    });
    expect(f.availability_mask).toBe(1);
    expect(f.is_busy).toBe(true);
  });

  it('checks the (country_id, city_id) pair and other references', () => {
    const brands = new Set([1]);
    const groups = new Set([5]);
    expect(
      checkReferences({ country_id: 1, city_id: 101, currency_id: 1, brand_ids: [1] }, brands, groups),
    ).toEqual([]);
    const bad = checkReferences(
      { country_id: 1, city_id: 201, currency_id: 99, brand_ids: [1, 2], price_group_id: 6 },
      brands,
      groups,
    );
    expect(bad.map((b) => b.path.join('.'))).toEqual([
      'body.city_id',
      'body.currency_id',
      'body.brand_ids.1',
      'body.price_group_id',
    ]);
    expect(checkReferences({ country_id: 999, city_id: 101 }, brands, groups)[0]!.path).toEqual([
      'body',
      'country_id',
    ]);
  });

  it('composes the wire record with computed fields and pass-through extras', () => {
    const r = composeBranch({
      id: 7,
      business: { id: 1, title: 'B' },
      brands: [{ id: 1, title: 'Kopi' }],
      fields: {
        title: 'T',
        brand_ids: [1],
        country_id: 1,
        currency_id: 1,
        language_id: '2',
        vat_custom_title: 'PB1',
      },
      visibilities: {},
      busy_mode_updated_at: null,
      created_at: 'c',
      updated_at: 'u',
      deleted_at: null,
    });
    expect(r).toMatchObject({
      id: 7,
      business_title: 'B',
      brand_ids: [1],
      brand_titles: ['Kopi'],
      country_code: 'ID',
      currency_code: 'IDR',
      currency_symbol: 'Rp',
      vat_custom_title: 'PB1',
    });
  });
});

import { describe, expect, it } from 'vitest';
import { RECORD_FIELDS } from './record-fields-data.js';
import { checkFields, parseFields, selectFields } from './fields.js';

describe('--json FIELDS', () => {
  it('parses a comma list, trimming and de-duplicating', () => {
    expect(parseFields('id, status,total,id')).toEqual(['id', 'status', 'total']);
    expect(() => parseFields('id;status')).toThrow(/--json expects field names separated by commas/);
    expect(() => parseFields(',')).toThrow(/--json expects/);
  });

  it('an unknown field is a usage error listing the available ones, sorted', () => {
    expect(() => checkFields(['id', 'stauts'], ['status', 'id'], 'orders list')).toThrow(
      'unknown --json field "stauts" for orders list; available fields:\n  id\n  status',
    );
    expect(() => checkFields(['id'], ['id'], 'x')).not.toThrow();
  });

  it('narrows every record and keeps the shape: list, page, record', () => {
    const rows = [
      { id: 1, status: 2, total: '10.00', cart: [] },
      { id: 2, status: 4 },
    ];
    expect(selectFields(rows, ['id', 'total'], 'x', ['id', 'total'])).toEqual([
      { id: 1, total: '10.00' },
      { id: 2, total: null },
    ]);
    expect(selectFields({ results: rows, page: 1, size: 20, total: 2 }, ['status'], 'x', ['status'])).toEqual(
      {
        results: [{ status: 2 }, { status: 4 }],
        page: 1,
        size: 20,
        total: 2,
      },
    );
    expect(selectFields(rows[0], ['cart', 'id'], 'x', ['cart', 'id'])).toEqual({ cart: [], id: 1 });
  });

  it('without the contract, fields are checked against the records themselves', () => {
    expect(() => selectFields([{ name: 'a' }], ['nme'], 'profiles list')).toThrow(
      /unknown --json field "nme" for profiles list; available fields:\n {2}name/,
    );
    expect(selectFields([], ['anything'], 'profiles list')).toEqual([]);
    expect(() => selectFields(['a', 'b'], ['id'], 'x')).toThrow(
      /prints no records to select fields from; use --jq/,
    );
  });

  it('the contract gives each operation its record fields and shape', () => {
    expect(RECORD_FIELDS.listBranches?.shape).toBe('page');
    expect(RECORD_FIELDS.listBranches?.fields).toEqual(expect.arrayContaining(['id', 'title', 'brand_ids']));
    expect(RECORD_FIELDS.listOrderStatuses).toEqual({
      shape: 'list',
      fields: ['id', 'status', 'translation', 'translation_btn'],
    });
    expect(RECORD_FIELDS.getOrder?.shape).toBe('record');
    expect(RECORD_FIELDS.getOrder?.fields).toEqual(expect.arrayContaining(['id', 'status', 'total', 'cart']));
    // A payload with no records of its own (the OpenAPI document) has no fields to select.
    expect(RECORD_FIELDS.getOpenApi).toBeUndefined();
  });
});

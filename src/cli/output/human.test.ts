import { describe, expect, it } from 'vitest';
import { renderHuman } from './human.js';
import { displayWidth, stripAnsi } from './display-width.js';
import { render } from './index.js';

const now = Date.parse('2025-01-01T12:00:00Z');
const orders = {
  results: [
    {
      id: 2,
      status: 4,
      brand_id: 1,
      branch_id: 1,
      total: '10.00',
      currency: 'IDR',
      created_at: '2025-01-01T11:55:00Z',
    },
    {
      id: 1,
      status: 3,
      brand_id: 1,
      branch_id: 2,
      total: '5.00',
      currency: 'IDR',
      created_at: '2025-01-01T10:00:00Z',
    },
  ],
  page: 1,
  size: 2,
  total: 3,
};

function capture(fn: (out: { write(s: string): unknown }) => void | Promise<void>) {
  let s = '';
  const r = fn({ write: (x: string) => (s += x) });
  return r instanceof Promise ? r.then(() => s) : Promise.resolve(s);
}

describe('render', () => {
  it('--json prints exactly the payload', async () => {
    const s = await capture((out) => render(out, orders, { json: true, tty: true, color: true, now }));
    expect(JSON.parse(s)).toEqual(orders);
  });

  it('on a TTY: a table with headers, status names, relative times, and a page footer', async () => {
    const s = await capture((out) =>
      renderHuman(out, orders, { json: false, tty: true, color: false, now, opId: 'listOrders' }),
    );
    expect(s).toContain('STATUS');
    expect(s).toContain('READY');
    expect(s).toContain('CANCELLED');
    expect(s).toContain('5 minutes ago');
    expect(s).toContain('1–2 of 3');
    expect(s).toContain('--page 2');
    expect(s).not.toMatch(/\u001b\[/);
  });

  it('colours only when asked', async () => {
    const s = await capture((out) =>
      renderHuman(out, orders, { json: false, tty: true, color: true, now, opId: 'listOrders' }),
    );
    expect(s).toMatch(/\u001b\[/);
  });

  it('off a TTY: tab-separated rows, no header, no footer, raw timestamps', async () => {
    const s = await capture((out) =>
      renderHuman(out, orders, { json: false, tty: false, color: false, now, opId: 'listOrders' }),
    );
    const lines = s.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]!.split('\t')).toEqual(['2', 'READY', '1', '1', '10.00 IDR', '', '2025-01-01T11:55:00Z']);
    expect(s).not.toContain('STATUS');
  });

  it('lays out a single record as key/value lines', async () => {
    const s = await capture((out) =>
      renderHuman(
        out,
        { id: 5, title: 'Kopi', updated_at: '2025-01-01T11:00:00Z' },
        { json: false, tty: false, color: false, now },
      ),
    );
    expect(s).toBe('id\t5\ntitle\tKopi\nupdated_at\t2025-01-01T11:00:00Z\n');
  });

  it('flattens the brand list through its view', async () => {
    const data = [{ business: { id: 1, title: 'Biz' }, brands: [{ id: 3, title: 'B', logo: '' }] }];
    const s = await capture((out) =>
      renderHuman(out, data, { json: false, tty: false, color: false, now, opId: 'listBrands' }),
    );
    expect(s).toBe('3\tB\tBiz\t\n');
  });

  it('draws a menu snapshot as a tree with live state', async () => {
    const menu = {
      brand_id: 1,
      branch_id: 2,
      version: 3,
      published_at: '2025-01-01T10:00:00Z',
      sections: [
        {
          id: 5,
          title: 'Mains',
          isEnabled: true,
          categories: [
            {
              id: 7,
              title: 'Burgers',
              items: [
                {
                  title: 'Cheeseburger',
                  partner_item_id: 'SKU-CB',
                  prices: { '1': '45000.00' },
                  enabled: true,
                  isAvailable: false,
                  stock: 0,
                  snoozed_until: null,
                  modifierGroups: [
                    {
                      title: 'Extras',
                      min: 0,
                      max: 2,
                      modifiers: [{ title: 'Bacon', partner_item_id: 'SKU-B', prices: { '1': '8000.00' } }],
                    },
                  ],
                },
              ],
            },
          ],
        },
      ],
    };
    const s = await capture((out) =>
      renderHuman(out, menu, { json: false, tty: true, color: false, now, opId: 'getMenu' }),
    );
    expect(s.split('\n')).toEqual([
      'brand 1 · branch 2 · version 3 · published 2 hours ago',
      'Mains (section 5)',
      '  Burgers (category 7)',
      '    Cheeseburger  SKU-CB  1: 45000.00  [out of stock]  [stock 0]',
      '      Extras (0–2)',
      '        Bacon  SKU-B  1: 8000.00',
      '',
    ]);
  });
});

describe('tables on a terminal fit its width', () => {
  const creds = [
    {
      key: 'pk_QFmbGic7d3I5PGb8',
      business_id: 1,
      scopes: [
        'brands:read',
        'brands:update',
        'brands:create',
        'branches:read',
        'orders:read',
        'orders:update',
      ],
      rate_limit: 600,
      revoked_at: null,
      created_at: '2025-01-01T11:00:00Z',
    },
  ];
  it('squeezes the widest column (cut with …) so no line passes the width', async () => {
    const s = await capture((out) =>
      renderHuman(out, creds, {
        json: false,
        tty: true,
        color: true,
        now,
        opId: 'operatorListCredentials',
        width: 79,
      }),
    );
    const lines = stripAnsi(s).trimEnd().split('\n');
    expect(Math.max(...lines.map(displayWidth))).toBeLessThanOrEqual(79);
    expect(lines[1]).toContain('pk_QFmbGic7d3I5PGb8');
    expect(lines[1]).toContain('brands:read');
    expect(lines[1]).toContain('…');
    expect(lines[1]).toContain('1 hour ago');
  });
  it('leaves a table that fits as it is', async () => {
    const wide = await capture((out) =>
      renderHuman(out, creds, {
        json: false,
        tty: true,
        color: false,
        now,
        opId: 'operatorListCredentials',
        width: 200,
      }),
    );
    expect(wide).toContain(
      'brands:read, brands:update, brands:create, branches:read, orders:read'.slice(0, 40),
    );
    expect(wide).not.toContain('…,');
  });
});

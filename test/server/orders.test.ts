import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type TestServer, startTestServer } from '../helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const DAY = 24 * 60 * 60 * 1000;
type EventRow = { type: string; payload: string; id: string };
const events = (orderId?: number): Promise<EventRow[]> =>
  orderId === undefined
    ? s.rows<EventRow>('SELECT * FROM outbox_events ORDER BY seq')
    : s.rows<EventRow>('SELECT * FROM outbox_events WHERE order_id = ? ORDER BY seq', orderId);

interface Place {
  business_id: number;
  brand_id: number;
  branch_id: number;
}
/** A (brand, branch) pair of the business, read from its branches. */
async function placeOf(cred: TestServer['credential']): Promise<Place> {
  const r = await call(s, 'GET', '/v1/partner/branches', { cred });
  const br = r.body.data.results[0];
  return { business_id: cred.businessId, brand_id: br.brand_ids[0], branch_id: br.id };
}

async function newOrder(extra: Record<string, unknown> = {}, cred = s.credential) {
  const r = await s.operator('POST', '/v1/operator/orders', { ...(await placeOf(cred)), ...extra });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data;
}

const patch = (body: Record<string, unknown>, o: Parameters<typeof call>[3] = {}) =>
  call(s, 'PATCH', '/v1/partner/orders/status', { body: { platform: 'enterprise', ...body }, ...o });

function sumMinor(amounts: string[], decimals: number): string {
  const n = amounts.reduce((a, v) => {
    const [w, f = ''] = v.split('.');
    return a + BigInt(w! + f.padEnd(decimals, '0'));
  }, 0n);
  const d = n.toString().padStart(decimals + 1, '0');
  return decimals ? `${d.slice(0, -decimals)}.${d.slice(-decimals)}` : d;
}

describe('GET /v1/partner/orders', () => {
  it('defaults to the last 24 h, newest first, paginated; demo orders in several states', async () => {
    const r = await call(s, 'GET', '/v1/partner/orders?size=100');
    expect(r.status).toBe(200);
    const { results, page, size, total } = r.body.data;
    expect({ page, size }).toEqual({ page: 1, size: 100 });
    expect(total).toBeGreaterThanOrEqual(8);
    expect(results).toHaveLength(total);
    const created = results.map((o: { created_at: string }) => Date.parse(o.created_at));
    expect(created).toEqual([...created].sort((a, b) => b - a));
    for (const c of created) expect(Date.now() - c).toBeLessThanOrEqual(DAY);
    expect(new Set(results.map((o: { status: number }) => o.status)).size).toBeGreaterThanOrEqual(5);
  });

  it('returns full records whose totals add up in the currency places', async () => {
    const r = await call(s, 'GET', '/v1/partner/orders?size=100');
    for (const o of r.body.data.results) {
      expect(Object.keys(o)).toEqual([
        'id',
        'status',
        'placed_at',
        'currency',
        'total',
        'cart',
        'customer',
        'branch_id',
        'brand_id',
        'updated_at',
        'order_type_id',
        'provider_id',
        'comment',
        'cancellation_reason',
        'created_at',
        'status_history',
      ]);
      const decimals = o.currency === 'IDR' ? 0 : 2;
      expect(o.total).toMatch(decimals ? /^\d+\.\d{2}$/ : /^\d+$/);
      expect(o.total).toBe(
        sumMinor(
          o.cart.map((l: { total: string }) => l.total),
          decimals,
        ),
      );
      expect(o.cart.length).toBeGreaterThanOrEqual(1);
      for (const l of o.cart) {
        expect(Object.keys(l)).toEqual([
          'item_id',
          'partner_item_id',
          'title',
          'quantity',
          'unit_price',
          'total',
          'modifiers',
        ]);
        const per = sumMinor(
          [
            l.unit_price,
            ...l.modifiers.flatMap((m: { quantity: number; unit_price: string }) =>
              Array(m.quantity).fill(m.unit_price),
            ),
          ],
          decimals,
        );
        expect(l.total).toBe(sumMinor(Array(l.quantity).fill(per), decimals));
      }
      expect(o.customer).toEqual({ name: expect.any(String), phone: expect.stringMatching(/^\+\d{8,15}$/) });
      expect([1, 2, 3]).toContain(o.order_type_id);
      expect(o.status_history.at(-1).status).toBe(o.status);
      expect(o.status_history.at(-1).at).toBe(o.updated_at);
      expect(o.status_history[0]).toMatchObject({ status: 1, by: 'system', at: o.created_at });
      expect(o.cancellation_reason === null).toBe(o.status !== 3);
    }
  });

  it('ignores business_id and filterByBusiness: the credential decides (tenancy)', async () => {
    const mine = await call(s, 'GET', '/v1/partner/orders?size=100');
    const theirs = await call(s, 'GET', '/v1/partner/orders?size=100', { cred: s.other });
    const spoof = await call(
      s,
      'GET',
      `/v1/partner/orders?size=100&business_id=${s.other.businessId}&filterByBusiness=${s.other.businessId}`,
    );
    expect(spoof.status).toBe(200);
    expect(spoof.body.data).toEqual(mine.body.data);
    const ids = new Set(mine.body.data.results.map((o: { id: number }) => o.id));
    expect(theirs.body.data.total).toBeGreaterThan(0);
    for (const o of theirs.body.data.results) expect(ids.has(o.id)).toBe(false);
  });

  it('range: over 90 days → 400 request_invalid_range; from after to → 400 request_invalid', async () => {
    const now = Date.now();
    const q = (from?: number | string, to?: number | string) =>
      call(
        s,
        'GET',
        `/v1/partner/orders?${new URLSearchParams({
          ...(from === undefined
            ? {}
            : { from: typeof from === 'number' ? new Date(from).toISOString() : from }),
          ...(to === undefined ? {} : { to: typeof to === 'number' ? new Date(to).toISOString() : to }),
        })}`,
      );
    expect((await q(now - 91 * DAY, now)).body.error?.code).toBe('request_invalid_range');
    expect((await q(now - 91 * DAY, now)).status).toBe(400);
    expect((await q(now - 90 * DAY, now)).status).toBe(200);
    expect((await q(now - 91 * DAY)).body.error?.code).toBe('request_invalid_range');
    const inverted = await q(now, now - 1000);
    expect(inverted.status).toBe(400);
    expect(inverted.body.error?.code).toBe('request_invalid');
    expect((await q('yesterday')).body.error?.code).toBe('request_invalid');
    expect((await q('2024-05-01T10:00:00')).body.error?.code).toBe('request_invalid'); // no offset: ambiguous
    expect((await q('2024-05-01', '2024-05-02')).status).toBe(200);
    expect((await q('2024-05-01T10:00:00+07:00', '2024-05-02T10:00:00+07:00')).status).toBe(200);
  });

  it('range bounds created_at, both ends inclusive', async () => {
    const all = (await call(s, 'GET', '/v1/partner/orders?size=100')).body.data.results;
    const oldest = all.at(-1);
    const at = encodeURIComponent(oldest.created_at);
    const r = await call(s, 'GET', `/v1/partner/orders?from=${at}&to=${at}`);
    expect(r.body.data.results.map((o: { id: number }) => o.id)).toContain(oldest.id);
    const past = await call(
      s,
      'GET',
      `/v1/partner/orders?to=${encodeURIComponent(new Date(Date.parse(oldest.created_at) - 1).toISOString())}`,
    );
    expect(past.body.data.results.map((o: { id: number }) => o.id)).not.toContain(oldest.id);
  });

  it('filters by status (code or id, comma-separated), branch_id and brand_id', async () => {
    const all = (await call(s, 'GET', '/v1/partner/orders?size=100')).body.data.results as {
      id: number;
      status: number;
      branch_id: number;
      brand_id: number;
    }[];
    const byCode = await call(s, 'GET', '/v1/partner/orders?status=ACCEPTED&size=100');
    const byId = await call(s, 'GET', '/v1/partner/orders?status=2&size=100');
    expect(byCode.body.data).toEqual(byId.body.data);
    expect(byCode.body.data.results.map((o: { id: number }) => o.id)).toEqual(
      all.filter((o) => o.status === 2).map((o) => o.id),
    );
    const two = await call(
      s,
      'GET',
      `/v1/partner/orders?status=${encodeURIComponent('delivered,picked up')}&size=100`,
    );
    expect(two.body.data.results.map((o: { id: number }) => o.id)).toEqual(
      all.filter((o) => o.status === 5 || o.status === 9).map((o) => o.id),
    );
    expect((await call(s, 'GET', '/v1/partner/orders?status=PREPARING')).body.error?.code).toBe(
      'request_invalid',
    );
    const branch = all[0]!.branch_id;
    const byBranch = await call(s, 'GET', `/v1/partner/orders?branch_id=${branch}&size=100`);
    expect(byBranch.body.data.results.map((o: { id: number }) => o.id)).toEqual(
      all.filter((o) => o.branch_id === branch).map((o) => o.id),
    );
    const brand = all[0]!.brand_id;
    const byBrand = await call(s, 'GET', `/v1/partner/orders?brand_id=${brand}&size=100`);
    expect(byBrand.body.data.results.map((o: { id: number }) => o.id)).toEqual(
      all.filter((o) => o.brand_id === brand).map((o) => o.id),
    );
    const otherBranch = (await call(s, 'GET', '/v1/partner/branches', { cred: s.other })).body.data.results[0]
      .id;
    expect((await call(s, 'GET', `/v1/partner/orders?branch_id=${otherBranch}`)).body.data).toMatchObject({
      results: [],
      total: 0,
    });
  });

  it('pages: page/size echoed, total over all pages; out of bounds → 400 request_invalid', async () => {
    const all = (await call(s, 'GET', '/v1/partner/orders?size=100')).body.data;
    const p1 = await call(s, 'GET', '/v1/partner/orders?page=1&size=3');
    const p2 = await call(s, 'GET', '/v1/partner/orders?page=2&size=3');
    expect(p1.body.data).toMatchObject({ page: 1, size: 3, total: all.total });
    expect([...p1.body.data.results, ...p2.body.data.results].map((o: { id: number }) => o.id)).toEqual(
      all.results.slice(0, 6).map((o: { id: number }) => o.id),
    );
    expect((await call(s, 'GET', '/v1/partner/orders?page=99')).body.data).toMatchObject({
      results: [],
      page: 99,
    });
    for (const q of ['page=0', 'size=0', 'size=101', 'page=1.5', 'size=abc']) {
      expect((await call(s, 'GET', `/v1/partner/orders?${q}`)).body.error?.code, q).toBe('request_invalid');
    }
    expect((await call(s, 'GET', '/v1/partner/orders?colour=red')).body.error?.code).toBe('request_invalid');
  });
});

describe('GET /v1/partner/orders/{id}', () => {
  it('returns the order read, identical to the list entry', async () => {
    const first = (await call(s, 'GET', '/v1/partner/orders?size=1')).body.data.results[0];
    const r = await call(s, 'GET', `/v1/partner/orders/${first.id}`);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual(first);
  });
  it("another business's order and an unknown id → 404 resource_not_found", async () => {
    const theirs = (await call(s, 'GET', '/v1/partner/orders?size=1', { cred: s.other })).body.data
      .results[0];
    for (const id of [theirs.id, 99999999]) {
      const r = await call(s, 'GET', `/v1/partner/orders/${id}`);
      expect(r.status).toBe(404);
      expect(r.body.error?.code).toBe('resource_not_found');
    }
  });
  it('coexists with /orders/statuses', async () => {
    const r = await call(s, 'GET', '/v1/partner/orders/statuses');
    expect(r.status).toBe(200);
    expect(r.body.data).toHaveLength(11);
  });
});

describe('PATCH /v1/partner/orders/status', () => {
  it('walks PLACED → ACCEPTED → READY → DELIVERED (code or id), each an event, then refuses CANCELLED', async () => {
    const o = await newOrder();
    expect(o.status).toBe(1);
    const a = await patch({ id: o.id, status: 'ACCEPTED' });
    expect(a.status).toBe(200);
    expect(a.body.data.status).toBe(2);
    const b = await patch({ id: o.id, status: 4 });
    expect(b.body.data.status).toBe(4);
    const c = await patch({ id: o.id, status: 'delivered' });
    expect(c.body.data.status).toBe(5);
    expect(c.body.data.status_history.map((h: { status: number; by: string }) => [h.status, h.by])).toEqual([
      [1, 'system'],
      [2, 'partner'],
      [4, 'partner'],
      [5, 'partner'],
    ]);
    const times = [o, a.body.data, b.body.data, c.body.data].map((x) => Date.parse(x.updated_at));
    for (let i = 1; i < times.length; i++) expect(times[i]).toBeGreaterThan(times[i - 1]!);

    const d = await patch({ id: o.id, status: 'CANCELLED', cancellation_reason: 'too late' });
    expect(d.status).toBe(409);
    expect(d.body.error).toMatchObject({
      code: 'state_invalid_transition',
      details: { from: 'DELIVERED', to: 'CANCELLED', allowed: [] },
    });

    const ev = await events(o.id);
    expect(ev.map((e) => e.type)).toEqual([
      'service.order.created.v2',
      'service.order.status.updated',
      'service.order.status.updated',
      'service.order.status.updated',
    ]);
    const get = await call(s, 'GET', `/v1/partner/orders/${o.id}`);
    const last = JSON.parse(ev.at(-1)!.payload);
    expect(last).toEqual({ brand_id: o.brand_id, branch_id: o.branch_id, orders: [get.body.data] });
    expect(ev.at(-1)!.id).toMatch(/^evt_[0-9a-z]+_[\w-]{16}$/);
    expect(new Set(ev.map((e) => e.id)).size).toBe(ev.length);
  });

  it('a disallowed move → 409 state_invalid_transition with details {from, to, allowed}', async () => {
    const o = await newOrder();
    const r = await patch({ id: o.id, status: 'READY' });
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({
      code: 'state_invalid_transition',
      details: { from: 'PLACED', to: 'READY', allowed: ['ACCEPTED', 'CANCELLED'] },
    });
    const r2 = await patch({ id: o.id, status: 'DRIVER ASSIGNED' });
    expect(r2.body.error?.details).toEqual({
      from: 'PLACED',
      to: 'DRIVER ASSIGNED',
      allowed: ['ACCEPTED', 'CANCELLED'],
    });
    const same = await patch({ id: o.id, status: 'PLACED' });
    expect(same.status).toBe(409);
  });

  it('CANCELLED needs a non-empty cancellation_reason, which the order then carries', async () => {
    const o = await newOrder();
    for (const extra of [
      {},
      { cancellation_reason: '' },
      { cancellation_reason: '   ' },
      { cancellation_reason: null },
    ]) {
      const r = await patch({ id: o.id, status: 'CANCELLED', ...extra });
      expect(r.status, JSON.stringify(extra)).toBe(400);
      expect(r.body.error?.code).toBe('request_invalid');
    }
    const ok = await patch({ id: o.id, status: 3, cancellation_reason: 'Kitchen closed early' });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ status: 3, cancellation_reason: 'Kitchen closed early' });
  });

  it('validates the body strictly: platform constant, known status, no unknown fields; business_id tolerated', async () => {
    const o = await newOrder();
    const cases: Record<string, unknown>[] = [
      { id: o.id, status: 'ACCEPTED', platform: 'web' },
      { id: o.id, status: 'ACCEPTED', platform: undefined },
      { id: o.id, status: 'PREPARING' },
      { id: o.id, status: 12 },
      { id: o.id, status: 'ACCEPTED', note: 'x' },
      { id: String(o.id), status: 'ACCEPTED' },
      { status: 'ACCEPTED' },
    ];
    for (const body of cases) {
      const r = await patch(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error?.code).toBe('request_invalid');
    }
    const ok = await patch({ id: o.id, status: 'ACCEPTED', business_id: 999 });
    expect(ok.status).toBe(200);
  });

  it('unknown order or another business’s order → 404 resource_not_found, and it stays untouched', async () => {
    const theirs = await newOrder({}, s.other);
    const before = (await events(theirs.id)).length;
    for (const id of [theirs.id, 99999999]) {
      const r = await patch({ id, status: 'ACCEPTED', business_id: s.other.businessId });
      expect(r.status).toBe(404);
      expect(r.body.error?.code).toBe('resource_not_found');
    }
    const after = await call(s, 'GET', `/v1/partner/orders/${theirs.id}`, { cred: s.other });
    expect(after.body.data).toEqual(theirs);
    expect(await events(theirs.id)).toHaveLength(before);
  });
});

describe('PATCH /v1/partner/orders/{id}/comment', () => {
  it('sets and clears the comment, bumps updated_at, emits no event and no history entry', async () => {
    const o = await newOrder();
    const before = (await events(o.id)).length;
    const r = await call(s, 'PATCH', `/v1/partner/orders/${o.id}/comment`, {
      body: { comment: 'Ring the bell twice' },
    });
    expect(r.status).toBe(200);
    expect(r.body.data.comment).toBe('Ring the bell twice');
    expect(Date.parse(r.body.data.updated_at)).toBeGreaterThan(Date.parse(o.updated_at));
    expect(r.body.data.status_history).toEqual(o.status_history);
    const cleared = await call(s, 'PATCH', `/v1/partner/orders/${o.id}/comment`, { body: { comment: '' } });
    expect(cleared.body.data.comment).toBeNull();
    expect(await events(o.id)).toHaveLength(before);
  });
  it('validates the body and hides other businesses’ orders', async () => {
    const o = await newOrder();
    expect(
      (await call(s, 'PATCH', `/v1/partner/orders/${o.id}/comment`, { body: {} })).body.error?.code,
    ).toBe('request_invalid');
    expect(
      (await call(s, 'PATCH', `/v1/partner/orders/${o.id}/comment`, { body: { comment: 'x'.repeat(2001) } }))
        .status,
    ).toBe(400);
    const theirs = await newOrder({}, s.other);
    const r = await call(s, 'PATCH', `/v1/partner/orders/${theirs.id}/comment`, {
      body: { comment: 'peek' },
    });
    expect(r.status).toBe(404);
    expect(r.body.error?.code).toBe('resource_not_found');
    expect(
      (await call(s, 'GET', `/v1/partner/orders/${theirs.id}`, { cred: s.other })).body.data.comment,
    ).toBeNull();
  });
});

describe('scopes', () => {
  it('orders:read reads but cannot update; orders:update updates but cannot read → 403 auth_forbidden', async () => {
    const o = await newOrder();
    const reader = await s.issueCredential({ businessId: s.credential.businessId, scopes: ['orders:read'] });
    const writer = await s.issueCredential({
      businessId: s.credential.businessId,
      scopes: ['orders:update'],
    });
    const other = await s.issueCredential({ businessId: s.credential.businessId, scopes: ['brands:read'] });

    expect((await call(s, 'GET', '/v1/partner/orders', { cred: reader })).status).toBe(200);
    expect((await call(s, 'GET', `/v1/partner/orders/${o.id}`, { cred: reader })).status).toBe(200);
    for (const r of [
      await patch({ id: o.id, status: 'ACCEPTED' }, { cred: reader }),
      await call(s, 'PATCH', `/v1/partner/orders/${o.id}/comment`, { cred: reader, body: { comment: 'x' } }),
    ]) {
      expect(r.status).toBe(403);
      expect(r.body.error).toMatchObject({
        code: 'auth_forbidden',
        details: { required_scope: 'orders:update' },
      });
    }
    for (const r of [
      await call(s, 'GET', '/v1/partner/orders', { cred: writer }),
      await call(s, 'GET', `/v1/partner/orders/${o.id}`, { cred: other }),
    ]) {
      expect(r.status).toBe(403);
      expect(r.body.error).toMatchObject({
        code: 'auth_forbidden',
        details: { required_scope: 'orders:read' },
      });
    }
    expect((await patch({ id: o.id, status: 'ACCEPTED' }, { cred: writer })).status).toBe(200);
  });
});

describe('operator order simulation', () => {
  it('creates a realistic PLACED order (lines with modifiers, provider, customer) and fires created.v2', async () => {
    const o = await newOrder({ items: 4 });
    expect(o).toMatchObject({ status: 1, comment: null, cancellation_reason: null });
    expect(o.cart).toHaveLength(4);
    expect(o.currency).toBe('IDR');
    expect(Date.parse(o.placed_at)).toBeLessThan(Date.parse(o.created_at));
    expect(o.status_history).toEqual([{ status: 1, at: o.created_at, by: 'system' }]);
    const ev = await events(o.id);
    expect(ev.map((e) => e.type)).toEqual(['service.order.created.v2']);
    expect(JSON.parse(ev[0]!.payload)).toEqual({ brand_id: o.brand_id, branch_id: o.branch_id, orders: [o] });
    expect((await call(s, 'GET', `/v1/partner/orders/${o.id}`)).body.data).toEqual(o);
  });

  it("draws generated carts from the brand's own menu: its SKUs, priced for the order's provider", async () => {
    for (let i = 0; i < 5; i++) {
      const o = await newOrder({ items: 3 });
      for (const line of o.cart) {
        const [item] = await s.rows<{
          brand_id: number;
          partner_item_id: string;
          prices: string;
          only_modifier: number | boolean;
        }>(
          'SELECT brand_id, partner_item_id, prices, only_modifier FROM menu_items WHERE id = ?',
          line.item_id,
        );
        expect(item).toMatchObject({ brand_id: o.brand_id, partner_item_id: line.partner_item_id });
        expect(Number(item!.only_modifier)).toBe(0);
        expect(JSON.parse(item!.prices)[String(o.provider_id)]).toBe(line.unit_price);
        for (const m of line.modifiers) {
          const [mod] = await s.rows<{ prices: string; only_modifier: number | boolean }>(
            'SELECT prices, only_modifier FROM menu_items WHERE id = ?',
            m.item_id,
          );
          expect(Number(mod!.only_modifier)).toBe(1);
          expect(JSON.parse(mod!.prices)[String(o.provider_id)]).toBe(m.unit_price);
        }
      }
    }
  });

  it('falls back to a sample menu for a brand without one', async () => {
    const brand = await call(s, 'POST', '/v1/partner/brands', { body: { title: 'Smash Burger Co' } });
    const week = Object.fromEntries(
      ['0', '1', '2', '3', '4', '5', '6'].map((d) => [d, { slots: [{ startTime: 900, endTime: 2100 }] }]),
    );
    const branch = await call(s, 'POST', '/v1/partner/branches', {
      body: {
        title: 'Smash Burger Kemang',
        brand_ids: [brand.body.data.id],
        country_id: 1,
        city_id: 101,
        currency_id: 1,
        available_times: week,
      },
    });
    expect(branch.status).toBe(201);
    const r = await s.operator('POST', '/v1/operator/orders', {
      business_id: s.credential.businessId,
      brand_id: brand.body.data.id,
      branch_id: branch.body.data.id,
      items: 2,
    });
    expect(r.status).toBe(201);
    expect(r.body.data.currency).toBe('IDR');
    for (const line of r.body.data.cart) expect(line.partner_item_id).toMatch(/^BG-/);
  });

  it('takes a given cart, order type and provider, and computes totals in the branch currency', async () => {
    const place = await placeOf(s.other);
    const r = await s.operator('POST', '/v1/operator/orders', {
      ...place,
      order_type_id: 2,
      provider_id: 5,
      customer: { name: 'Somchai Jaidee', phone: '+66812345678' },
      cart: [
        {
          item_id: 11,
          partner_item_id: 'SL-PAD-THAI',
          title: 'Pad Thai',
          quantity: 2,
          unit_price: '129',
          modifiers: [{ item_id: 12, title: 'Egg', quantity: 1, unit_price: '15.5' }],
        },
        { item_id: 13, partner_item_id: 'SL-THAI-TEA', title: 'Thai Tea', quantity: 1, unit_price: '55.00' },
      ],
    });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({
      currency: 'THB',
      total: '344.00',
      order_type_id: 2,
      provider_id: 5,
      customer: { name: 'Somchai Jaidee', phone: '+66812345678' },
      cart: [
        { unit_price: '129.00', total: '289.00', modifiers: [{ unit_price: '15.50', quantity: 1 }] },
        { unit_price: '55.00', total: '55.00', modifiers: [] },
      ],
    });
  });

  it('refuses references outside the business and bad carts with 400 request_invalid', async () => {
    const mine = await placeOf(s.credential);
    const theirs = await placeOf(s.other);
    for (const body of [
      { ...mine, branch_id: theirs.branch_id },
      { ...mine, brand_id: theirs.brand_id },
      { ...mine, business_id: 999 },
      { ...mine, provider_id: 999 },
      { ...mine, items: 0 },
      { ...mine, items: 2, cart: [] },
      {
        ...mine,
        cart: [{ item_id: 1, partner_item_id: 'A', title: 'A', quantity: 1, unit_price: '1000.5' }],
      },
      {
        ...mine,
        cart: [
          { item_id: 1, partner_item_id: 'A', title: 'A', quantity: 2, unit_price: '1000', total: '1000' },
        ],
      },
    ]) {
      const r = await s.operator('POST', '/v1/operator/orders', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error?.code).toBe('request_invalid');
    }
  });

  it('replaces the cart of an open order (new totals, updated_at, cart.updated) but not of a final one', async () => {
    const o = await newOrder({ items: 1 });
    const r = await s.operator('PUT', `/v1/operator/orders/${o.id}/cart`, { items: 3 });
    expect(r.status).toBe(200);
    expect(r.body.data.cart).toHaveLength(3);
    expect(r.body.data.status_history).toEqual(o.status_history);
    expect(Date.parse(r.body.data.updated_at)).toBeGreaterThan(Date.parse(o.updated_at));
    expect(r.body.data.total).toBe(
      sumMinor(
        r.body.data.cart.map((l: { total: string }) => l.total),
        0,
      ),
    );
    const ev = (await events(o.id)).at(-1)!;
    expect(ev.type).toBe('service.order.cart.updated');
    expect(JSON.parse(ev.payload).orders[0]).toEqual(r.body.data);

    const empty = await s.operator('PUT', `/v1/operator/orders/${o.id}/cart`, {});
    expect(empty.status).toBe(200);
    expect(empty.body.data.cart.length).toBeGreaterThanOrEqual(1);

    await patch({ id: o.id, status: 'CANCELLED', cancellation_reason: 'customer changed their mind' });
    const done = await s.operator('PUT', `/v1/operator/orders/${o.id}/cart`, {});
    expect(done.status).toBe(409);
    expect(done.body.error?.code).toBe('state_invalid_transition');
    expect((await s.operator('PUT', '/v1/operator/orders/99999999/cart', {})).status).toBe(404);
  });

  it('sets any status as operator (bypassing the table), bumps updated_at and fires status.updated', async () => {
    const o = await newOrder();
    const steps = ['DRIVER ASSIGNED', 'PICKED UP', 'VOID', 'PLACED', 'CANCELLED'];
    let prev = Date.parse(o.updated_at);
    for (const st of steps) {
      const r = await s.operator('POST', `/v1/operator/orders/${o.id}/status`, { status: st });
      expect(r.status, st).toBe(200);
      expect(Date.parse(r.body.data.updated_at)).toBeGreaterThan(prev);
      prev = Date.parse(r.body.data.updated_at);
    }
    const final = (await call(s, 'GET', `/v1/partner/orders/${o.id}`)).body.data;
    expect(final.status).toBe(3);
    expect(final.cancellation_reason).toBe('cancelled by operator');
    expect(
      final.status_history.slice(1).map((h: { status: number; by: string }) => [h.status, h.by]),
    ).toEqual([
      [7, 'operator'],
      [9, 'operator'],
      [11, 'operator'],
      [1, 'operator'],
      [3, 'operator'],
    ]);
    expect((await events(o.id)).filter((e) => e.type === 'service.order.status.updated')).toHaveLength(
      steps.length,
    );
    expect(
      (await s.operator('POST', `/v1/operator/orders/${o.id}/status`, { status: 'PREPARING' })).status,
    ).toBe(400);
    expect((await s.operator('POST', '/v1/operator/orders/99999999/status', { status: 2 })).status).toBe(404);
  });

  it('is operator-only: a partner credential is not accepted there', async () => {
    const r = await call(s, 'POST', '/v1/operator/orders', { body: await placeOf(s.credential) });
    expect(r.status).toBe(401);
  });
});

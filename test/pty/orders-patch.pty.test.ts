import { describe, expect, it } from 'vitest';
import { call, type TestServer } from '../helpers/server.js';
import { KEYS, spawnPartner, localProfile, onDemoServer } from './harness.js';

// `orders patch ID` without --status at a real terminal (issue 21 point 9): the order's status
// is shown and only the moves the transition table allows from it are offered; a final status
// offers none and says so (exit 5, as the server's 409 would).

let s: TestServer;
onDemoServer((server) => {
  s = server;
});

async function orderIn(status: string): Promise<number> {
  const r = await s.operator('POST', '/v1/operator/orders', {
    business_id: s.credential.businessId,
    brand_id: 1,
    branch_id: 1,
    items: 1,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  const id = r.body.data.id as number;
  if (status !== 'PLACED') {
    const set = await s.operator('POST', `/v1/operator/orders/${id}/status`, { status });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
  }
  return id;
}

/** The choices of the select prompt on screen (the lines after the question). */
async function offered(
  id: number,
  current: string,
): Promise<{ t: ReturnType<typeof spawnPartner>; screen: string }> {
  const t = spawnPartner(['orders', 'patch', String(id), '--no-color'], { configDir: localProfile(s) });
  const screen = (await t.waitFor(`Order ${id} is ${current}. New status:`, 30_000)).join('\n');
  return { t, screen };
}

describe('orders patch ID at a terminal offers the legal moves only', () => {
  it('a READY order: DELIVERED and CANCELLED, its status shown; Enter delivers it', async () => {
    const id = await orderIn('READY');
    const { t, screen } = await offered(id, 'READY');
    const after = screen.slice(screen.indexOf('New status:'));
    expect(after).toMatch(/DELIVERED/);
    expect(after).toMatch(/CANCELLED/);
    expect(after).not.toMatch(/ACCEPTED/);
    t.write(KEYS.enter);
    expect(await t.exit()).toBe(0);
    expect((await call(s, 'GET', `/v1/partner/orders/${id}`)).body.data.status).toBe(5);
  });

  it('an ACCEPTED order: READY and CANCELLED', async () => {
    const id = await orderIn('ACCEPTED');
    const { t, screen } = await offered(id, 'ACCEPTED');
    const after = screen.slice(screen.indexOf('New status:'));
    expect(after).toMatch(/READY/);
    expect(after).toMatch(/CANCELLED/);
    expect(after).not.toMatch(/DELIVERED|❯ ACCEPTED|^\s+ACCEPTED/m);
    t.write(KEYS.ctrlC);
    expect(await t.exit()).toBe(1);
  });

  it('a DELIVERED order: nothing offered, said so, exit 5, nothing sent', async () => {
    const id = await orderIn('DELIVERED');
    const t = spawnPartner(['orders', 'patch', String(id), '--no-color'], { configDir: localProfile(s) });
    expect(await t.exit(30_000)).toBe(5);
    const text = t.history().join('\n');
    expect(text).toMatch(new RegExp(`order ${id} is DELIVERED, a final status`));
    expect(text).not.toMatch(/New status/);
    expect((await call(s, 'GET', `/v1/partner/orders/${id}`)).body.data.status).toBe(5);
  });
});

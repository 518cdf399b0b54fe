import { describe, expect, it } from 'vitest';
import { call, type TestServer } from '../helpers/server.js';
import { KEYS, type PtySession, spawnPartner, localProfile, onDemoServer } from './harness.js';

// `orders watch` in an 80×24 terminal: more orders than rows, an action by key and by the menu,
// a resize. What a person must always see: the title and the column header at the top, the
// selected row, the key hints, and no line wrapping onto the next one.

let s: TestServer;
onDemoServer((server) => {
  s = server;
});

async function newOrder(): Promise<number> {
  const r = await s.operator('POST', '/v1/operator/orders', {
    business_id: s.credential.businessId,
    brand_id: 1,
    branch_id: 1,
    items: 3,
  });
  expect(r.status).toBe(201);
  return r.body.data.id;
}

function expectWholeScreen(t: PtySession) {
  const screen = t.screen();
  expect(t.wrappedRows(), `wrapped rows in:\n${screen.join('\n')}`).toEqual([]);
  expect(screen[0]).toMatch(/^orders watch/);
  expect(screen.some((l) => /\bID\b.*\bSTATUS\b/.test(l))).toBe(true);
  expect(screen.some((l) => /a accept/.test(l) && /q quit/.test(l))).toBe(true);
}

describe('orders watch at a real terminal', () => {
  it('fits 80×24 with more orders than rows, acts on the selected order, follows a resize', async () => {
    const configDir = localProfile(s);
    const ids: number[] = [];
    for (let i = 0; i < 18; i++) ids.push(await newOrder());
    const newest = ids.at(-1)!;
    const t = spawnPartner(['orders', 'watch', '--since', '1h', '--interval', '300ms', '--duration', '60s'], {
      configDir,
    });
    await t.waitFor(`#${newest}`, 30_000);
    expectWholeScreen(t);
    // The newest order is selected first; `a` accepts it.
    t.write('a');
    await t.waitFor(new RegExp(`#${newest}\\s+PLACED → ACCEPTED|#${newest} PLACED → ACCEPTED`), 30_000);
    expectWholeScreen(t);
    expect((await call(s, 'GET', `/v1/partner/orders/${newest}`)).body.data.status).toBe(2);

    // Down past the bottom of the table: the selection scrolls into view, the header stays.
    for (let i = 0; i < 17; i++) t.write(KEYS.down);
    const oldest = ids[0]!;
    await t.waitFor((screen) => screen.some((l) => l.startsWith('> ') && l.includes(`#${oldest}`)));
    expectWholeScreen(t);

    // The action menu on the selected order, drawn under the table, then back to the full frame.
    t.write(KEYS.enter);
    await t.waitFor('Order:');
    t.write(KEYS.enter);
    await t.waitFor(`Action on order #${oldest}:`);
    t.write(KEYS.enter); // accept: the first action offered for PLACED
    await t.waitFor(new RegExp(`#${oldest}\\s.*ACCEPTED|#${oldest} PLACED → ACCEPTED`), 30_000);
    await t.waitFor((screen) => screen.some((l) => /a accept/.test(l)));
    expectWholeScreen(t);
    expect((await call(s, 'GET', `/v1/partner/orders/${oldest}`)).body.data.status).toBe(2);

    t.resize(60, 18);
    // Redrawn for the new size: every line within 60 cells, nothing wrapped, header on top.
    await t.waitFor((screen) => t.cols === 60 && Math.max(...screen.map((l) => l.length)) <= 59);
    expectWholeScreen(t);

    t.write('q');
    expect(await t.exit()).toBe(0);
  }, 30_000);
});

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openProfiles } from '../../src/cli/profiles.js';
import { call, type TestServer } from '../helpers/server.js';
import { KEYS, spawnPartner, tempDir, localProfile, onDemoServer } from './harness.js';

// The guided prompts against a real server, answered at a real terminal: bootstrap's default
// brand, orders patch's status list, menu push's confirmation and an API delete's confirmation.

let s: TestServer;
onDemoServer((server) => {
  s = server;
});

async function placedOrder(): Promise<{ id: number; brand: number; branch: number }> {
  const brands = (await call(s, 'GET', '/v1/partner/brands')).body.data[0].brands;
  const branches = (await call(s, 'GET', '/v1/partner/branches')).body.data.results;
  const branch = branches.find((b: { brand_ids: number[] }) => b.brand_ids.includes(brands[0].id));
  const r = await s.operator('POST', '/v1/operator/orders', {
    business_id: s.credential.businessId,
    brand_id: brands[0].id,
    branch_id: branch.id,
    items: 2,
  });
  expect(r.status).toBe(201);
  return { id: r.body.data.id, brand: brands[0].id, branch: branch.id };
}

describe('prompts at a real terminal', () => {
  it('bootstrap: the default-brand prompt answered with the keyboard is saved on the profile', async () => {
    const configDir = localProfile(s);
    const t = spawnPartner(['bootstrap'], { configDir });
    await t.waitFor('Save a default brand and branch on profile "local"?', 30_000);
    // The whole report fits 80 columns: long cells wrap inside their column, no line wraps.
    const wrapped = t.wrappedRows(true).map((y) => t.history()[y - 1]);
    expect(wrapped, 'lines wider than the terminal').toEqual([]);
    expect(t.history().join('\n')).toMatch(/OPENING HOURS/);
    t.write('y');
    t.write(KEYS.enter);
    await t.waitFor('Default brand:');
    t.write(KEYS.enter);
    await t.waitFor('Default branch:');
    t.write(KEYS.enter);
    await t.waitFor(/Saved on profile local: default brand \d+, default branch \d+/);
    expect(await t.exit()).toBe(0);
    const p = openProfiles({ configDir }).get('local');
    expect(p?.default_brand_id).toBeGreaterThan(0);
    expect(p?.default_branch_id).toBeGreaterThan(0);
  });

  it('orders patch without --status: arrow keys pick CANCELLED, the reason is asked, the order moves', async () => {
    const configDir = localProfile(s);
    const order = await placedOrder();
    const t = spawnPartner(['orders', 'patch', String(order.id)], { configDir });
    await t.waitFor(`Order ${order.id} is PLACED. New status:`);
    // The list shows only the moves a partner may make from PLACED, in the table's order.
    const screen = (await t.waitFor('CANCELLED')).join('\n');
    expect(screen.slice(screen.indexOf('New status:'))).not.toMatch(/PLACED|VOID|READY|DELIVERED/);
    t.write(KEYS.down);
    t.write(KEYS.down);
    t.write(KEYS.down);
    t.write(KEYS.enter);
    await t.waitFor('Cancellation reason:');
    t.write('kitchen closed');
    t.write(KEYS.enter);
    expect(await t.exit()).toBe(0);
    const after = await call(s, 'GET', `/v1/partner/orders/${order.id}`);
    expect(after.body.data.status).toBe(3);
    expect(after.body.data.cancellation_reason).toBe('kitchen closed');
  });

  it('orders patch: Enter on the first choice accepts a placed order', async () => {
    const configDir = localProfile(s);
    const order = await placedOrder();
    const t = spawnPartner(['orders', 'patch', String(order.id)], { configDir });
    await t.waitFor('ACCEPTED');
    t.write(KEYS.enter);
    expect(await t.exit()).toBe(0);
    expect((await call(s, 'GET', `/v1/partner/orders/${order.id}`)).body.data.status).toBe(2);
  });

  it('Ctrl-C at a prompt cancels: "Cancelled.", exit 1, nothing changed, no error dump', async () => {
    const configDir = localProfile(s);
    const order = await placedOrder();
    const t = spawnPartner(['orders', 'patch', String(order.id)], { configDir });
    await t.waitFor('ACCEPTED');
    t.write(KEYS.ctrlC);
    await t.waitFor('Cancelled.');
    expect(await t.exit()).toBe(1);
    expect(t.history().join('\n')).not.toMatch(/error|force closed/i);
    expect((await call(s, 'GET', `/v1/partner/orders/${order.id}`)).body.data.status).toBe(1);
  });

  it('menu push FILE --brand ID asks before writing, and pushes once confirmed', async () => {
    const configDir = localProfile(s);
    const order = await placedOrder();
    const dir = tempDir('partner-pty-menu-');
    const file = join(dir, 'menu.yaml');
    writeFileSync(
      file,
      [
        'sections:',
        '  - key: pty',
        '    title: Typed at a terminal',
        '    categories:',
        '      - key: drinks',
        '        title: Drinks',
        '        items:',
        '          - {key: tea, title: Iced tea, partner_item_id: SKU-PTY-TEA, prices: {"1": "9000.00"}}',
        '',
      ].join('\n'),
    );
    const t = spawnPartner(['menu', 'push', file, '--brand', String(order.brand)], { configDir, cwd: dir });
    await t.waitFor(`Push to brand ${order.brand}`, 30_000);
    t.write('y');
    t.write(KEYS.enter);
    expect(await t.exit(30_000)).toBe(0);
    const tree = await call(s, 'GET', `/v1/partner/menus?brand_id=${order.brand}&branch_id=${order.branch}`);
    expect(JSON.stringify(tree.body.data)).toContain('SKU-PTY-TEA');
  });

  it('an API delete asks first: "no" deletes nothing, "yes" deletes', async () => {
    const configDir = localProfile(s);
    const created = await call(s, 'POST', '/v1/partner/price/groups', { body: { title: 'Typed delete' } });
    expect(created.status).toBe(201);
    const id = created.body.data.id as number;
    const exists = async () =>
      ((await call(s, 'GET', '/v1/partner/price/groups')).body.data as { id: number }[]).some(
        (g) => g.id === id,
      );

    const no = spawnPartner(['price-groups', 'delete', String(id)], { configDir });
    await no.waitFor(`Delete price-groups ${id}?`);
    no.write('n');
    no.write(KEYS.enter);
    await no.waitFor('Cancelled.');
    expect(await no.exit()).toBe(1);
    expect(await exists()).toBe(true);

    const yes = spawnPartner(['price-groups', 'delete', String(id)], { configDir });
    await yes.waitFor(`Delete price-groups ${id}?`);
    yes.write('y');
    yes.write(KEYS.enter);
    expect(await yes.exit()).toBe(0);
    expect(await exists()).toBe(false);
  });
});

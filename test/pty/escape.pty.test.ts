import { describe, expect, it } from 'vitest';
import { openProfiles } from '../../src/cli/profiles.js';
import { call, type TestServer } from '../helpers/server.js';
import { KEYS, spawnPartner, tempDir, localProfile, onDemoServer } from './harness.js';

// Escape at a prompt cancels it exactly as Ctrl-C does (prompts.pty.test.ts): "Cancelled.",
// exit 1, nothing changed, no error dump. A person reaches for Escape to back out of a menu.

let s: TestServer;
onDemoServer((server) => {
  s = server;
});

describe('Escape at a prompt', { timeout: 120_000 }, () => {
  it('a list (orders patch): cancelled, nothing changed', async () => {
    const brands = (await call(s, 'GET', '/v1/partner/brands')).body.data[0].brands;
    const branches = (await call(s, 'GET', '/v1/partner/branches')).body.data.results;
    const branch = branches.find((b: { brand_ids: number[] }) => b.brand_ids.includes(brands[0].id));
    const order = (
      await s.operator('POST', '/v1/operator/orders', {
        business_id: s.credential.businessId,
        brand_id: brands[0].id,
        branch_id: branch.id,
        items: 2,
      })
    ).body.data;
    const t = spawnPartner(['orders', 'patch', String(order.id)], { configDir: localProfile(s) });
    await t.waitFor('ACCEPTED', 30_000);
    t.write(KEYS.escape);
    await t.waitFor('Cancelled.', 30_000);
    expect(await t.exit(30_000)).toBe(1);
    expect(t.history().join('\n')).not.toMatch(/error|force closed|aborted/i);
    expect((await call(s, 'GET', `/v1/partner/orders/${order.id}`)).body.data.status).toBe(1);
  });

  it('a confirmation (an API delete): cancelled, nothing deleted', async () => {
    const created = await call(s, 'POST', '/v1/partner/price/groups', { body: { title: 'Escaped delete' } });
    const id = created.body.data.id as number;
    const t = spawnPartner(['price-groups', 'delete', String(id)], { configDir: localProfile(s) });
    await t.waitFor(`Delete price-groups ${id}?`, 30_000);
    t.write(KEYS.escape);
    await t.waitFor('Cancelled.', 30_000);
    expect(await t.exit(30_000)).toBe(1);
    expect(t.history().join('\n')).not.toMatch(/error|force closed|aborted/i);
    const groups = (await call(s, 'GET', '/v1/partner/price/groups')).body.data as { id: number }[];
    expect(groups.some((g) => g.id === id)).toBe(true);
  });

  it('a text field (profiles add): cancelled, nothing saved', async () => {
    const configDir = tempDir('partner-pty-cfg-');
    const t = spawnPartner(['profiles', 'add', 'esc'], { configDir });
    await t.waitFor(/Base URL|Partner key/, 30_000);
    t.write(KEYS.escape);
    await t.waitFor('Cancelled.', 30_000);
    expect(await t.exit(30_000)).toBe(1);
    expect(t.history().join('\n')).not.toMatch(/error|force closed|aborted/i);
    expect(
      openProfiles({ configDir })
        .list()
        .map((p) => p.name),
    ).not.toContain('esc');
  });
});

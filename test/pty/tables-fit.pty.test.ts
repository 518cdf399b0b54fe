import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { cleanup, ensureBuilt, spawnPartner, localProfile } from './harness.js';

// Tables at a real terminal (issue 21 point 4): paging is the default there, and the table must
// still fit the terminal's width (the pager's pipe has none of its own), through the real
// `less -FRX`; at 60 columns times and totals keep their meaning (docs/cli.md, Output).

let s: TestServer;
beforeAll(async () => {
  ensureBuilt();
  s = await startTestServer({ seed: 'demo' });
  // A delivery log to show: a receiver nobody listens on (loopback), and an order for it.
  const hook = await s.operator('POST', '/v1/operator/webhooks', {
    business_id: s.credential.businessId,
    url: 'http://127.0.0.1:1/hooks/partner-receiver',
    event: 'all',
  });
  expect(hook.status).toBe(201);
  const order = await s.operator('POST', '/v1/operator/orders', {
    business_id: s.credential.businessId,
    brand_id: 1,
    branch_id: 1,
    items: 2,
  });
  expect(order.status, JSON.stringify(order.body)).toBe(201);
}, 60_000);
afterAll(async () => {
  await s?.close();
});
afterEach(() => cleanup());

async function table(args: string[], cols: number): Promise<string[]> {
  const op = args[0] === 'operator' ? ['--server', s.baseUrl, '--token', s.operatorToken] : [];
  // Rows enough for the whole table: less -F then prints it and quits, as at a real terminal.
  const t = spawnPartner([...args, ...op], { cols, rows: 40, configDir: localProfile(s) });
  expect(await t.exit(30_000)).toBe(0);
  const lines = t.history().filter((l) => l !== '');
  expect(lines.length, lines.join('\n')).toBeGreaterThan(1);
  // No line of the table continues on the next row of the terminal.
  expect(t.wrappedRows(true), lines.join('\n')).toEqual([]);
  return lines;
}

describe('tables fit the terminal when paged (the default)', () => {
  for (const args of [
    ['branches', 'list'],
    ['price-groups', 'list'],
    ['operator', 'businesses', 'list'],
    ['operator', 'credentials', 'list'],
    ['operator', 'webhooks', 'log'],
  ]) {
    it(`${args.join(' ')} at 80 columns: one line a row`, async () => {
      const lines = await table(args, 80);
      expect(lines[0]).toMatch(/^ID|^KEY/);
    });
  }

  it('orders list at 60 columns: one line a row, totals and times whole', async () => {
    const lines = await table(['orders', 'list'], 60);
    expect(lines[0]).toMatch(/^ID\s+STATUS.*TOTAL.*CREATED$/);
    for (const row of lines.slice(1, -1)) {
      expect(row).toMatch(/\d+ IDR\s/);
      expect(row).toMatch(/(just now|now|\d+[smhd] ago)$/);
    }
  });

  it('orders list --no-pager at 60 columns: the same', async () => {
    const lines = await table(['orders', 'list', '--no-pager'], 60);
    for (const row of lines.slice(1, -1)) {
      expect(row).toMatch(/\d+ IDR\s/);
      expect(row).toMatch(/(just now|now|\d+[smhd] ago)$/);
    }
  });

  it('orders list at 100 columns keeps the long relative times', async () => {
    const lines = await table(['orders', 'list'], 100);
    expect(lines.slice(1, -1).join('\n')).toMatch(/(minutes?|hours?) ago$/m);
  });
});

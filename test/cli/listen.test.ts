import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sign } from '../../src/webhooks/signature.js';
import { startWithProfile } from '../helpers/profile.js';
import type { TestServer } from '../helpers/server.js';
import { type CliResult, runCli, tempDir } from './run-cli.js';

// `partner listen` and `partner webhooks sign|verify`, in-process.

let s: TestServer;
let configDir: string;
beforeAll(async () => {
  ({ s, configDir } = await startWithProfile());
});
afterAll(async () => {
  await s?.close();
});

/**
 * Starts `partner listen …`, waits for its URL, and returns a handle to stop it. The listener runs
 * in this process and prints in a setImmediate after acknowledging: that runs in the same turn of
 * the event loop as the acknowledgement, before any sender here can read the 200, so once a send
 * has its answer its lines are printed (no pause needed before `stop`).
 */
async function listen(args: string[]): Promise<{ url: string; stop: () => Promise<CliResult> }> {
  let stopNow!: (sig: string) => void;
  const stopped = new Promise<string>((r) => {
    stopNow = r;
  });
  let onUrl!: (u: string) => void;
  const urlP = new Promise<string>((r) => {
    onUrl = r;
  });
  const done = runCli(['listen', '--port', '0', ...args], {
    configDir,
    untilStopped: () => stopped,
    onStderr: (chunk) => {
      const m = /Listening on (\S+?)[;\s]/.exec(chunk);
      if (m) onUrl(m[1]!);
    },
  });
  const url = await Promise.race([
    urlP,
    done.then((r) => {
      throw new Error(`listen exited ${r.code}: ${r.stderr}`);
    }),
  ]);
  return {
    url,
    stop: async () => {
      stopNow('SIGINT');
      return done;
    },
  };
}

async function deliver(
  url: string,
  secret: string,
  body: unknown,
  id = `evt_${Math.random()}`,
  type = 'service.order.created.v2',
) {
  const raw = JSON.stringify(body);
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-partner-signature': sign(secret, raw),
      'x-partner-event-id': id,
      'x-partner-event-type': type,
      'x-partner-delivery-attempt': '1',
    },
    body: raw,
  });
}

const until = async (pred: () => boolean | Promise<boolean>, ms = 5000) => {
  const end = Date.now() + ms;
  while (!(await pred())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('partner listen', () => {
  it('verifies, prints one JSON object per event, rejects a bad signature with 401', async () => {
    const l = await listen(['--secret', 'whsec_test', '--json']);
    const order = { id: 7, status: 1, updated_at: '2025-01-01T00:00:00Z' };
    const ok = await deliver(l.url, 'whsec_test', { brand_id: 1, branch_id: 2, orders: [order] }, 'evt_1');
    expect(ok.status).toBe(200);
    const again = await deliver(l.url, 'whsec_test', { brand_id: 1, branch_id: 2, orders: [order] }, 'evt_1');
    expect(again.status).toBe(200);
    const bad = await deliver(l.url, 'wrong', { brand_id: 1, branch_id: 2, orders: [] }, 'evt_2');
    expect(bad.status).toBe(401);
    expect(await bad.text()).toContain('invalid signature');
    const r = await l.stop();
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((x) => JSON.parse(x));
    expect(lines.map((x) => [x.event_id, x.duplicate, x.verified])).toEqual([
      ['evt_1', false, true],
      ['evt_1', true, true],
    ]);
    expect(lines[0].body.orders[0].id).toBe(7);
    expect(r.stderr).toMatch(/rejected evt_2: signature mismatch/);
  });

  it('pretty output marks a repeated event id, and a repeated cart is not "first seen here" again', async () => {
    const l = await listen(['--secret', 'whsec_test']);
    const cart = [{ partner_item_id: 'SKU-NG', title: 'Nasi goreng', quantity: 2 }];
    const order = { id: 9, status: 2, updated_at: '2025-01-01T00:00:00Z', cart };
    const body = { brand_id: 1, branch_id: 2, orders: [order] };
    for (let i = 0; i < 2; i++)
      expect(
        (await deliver(l.url, 'whsec_test', body, 'evt_cart', 'service.order.cart.updated')).status,
      ).toBe(200);
    const status = { ...body, orders: [{ ...order, status: 4 }] };
    for (let i = 0; i < 2; i++)
      expect(
        (await deliver(l.url, 'whsec_test', status, 'evt_st', 'service.order.status.updated')).status,
      ).toBe(200);
    const r = await l.stop();
    const blocks = r.stdout.split(/(?=^--> )/m);
    expect(blocks).toHaveLength(4);
    expect(blocks[0]).not.toMatch(/duplicate/);
    expect(blocks[0]).toContain('cart (first seen here)');
    expect(blocks[1]).toMatch(/^--> service\.order\.cart\.updated evt_cart .*duplicate/);
    expect(blocks[1]).not.toContain('first seen here');
    expect(blocks[1]).not.toContain('Nasi goreng');
    expect(blocks[2]).not.toMatch(/duplicate/);
    expect(blocks[3]).toMatch(/^--> service\.order\.status\.updated evt_st .*duplicate/);
  });

  it('needs a secret: exit 2 naming --secret', async () => {
    const r = await runCli(['listen', '--port', '0'], { configDir: tempDir() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--secret/);
  });

  it('--local registers with the local server, receives a real delivery, and unregisters on exit', async () => {
    const l = await listen(['--local', '--data', s.dataDir, '--json']);
    const regs = (await s.operator('GET', '/v1/operator/webhooks')).body.data as { url: string }[];
    expect(regs.map((w) => w.url)).toContain(l.url);
    const b = await runCli(['brands', 'list', '--json'], { configDir });
    const brand = JSON.parse(b.stdout)[0].brands[0].id;
    const br = JSON.parse((await runCli(['branches', 'list', '--json'], { configDir })).stdout).results.find(
      (x: { brand_ids: number[] }) => x.brand_ids.includes(brand),
    ).id;
    const order = await s.operator('POST', '/v1/operator/orders', {
      business_id: s.credential.businessId,
      brand_id: brand,
      branch_id: br,
      items: 1,
    });
    expect(order.status).toBe(201);
    const patched = await runCli(
      ['orders', 'patch', String(order.body.data.id), '--status', 'ACCEPTED', '--json'],
      {
        configDir,
      },
    );
    expect(patched.code).toBe(0);
    // Both deliveries go out within about a second (batching window, then the POST).
    await until(async () => {
      const log = (await s.operator('GET', '/v1/operator/webhooks/log')).body.data as {
        url: string;
        status: string;
      }[];
      return log.filter((d) => d.url === l.url && d.status === 'delivered').length >= 2;
    }, 10_000);
    const r = await l.stop();
    expect(r.code).toBe(0);
    const events: {
      event_type: string;
      verified: boolean;
      body: { orders: { id: number; status: number }[] };
    }[] = r.stdout
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((x) => JSON.parse(x));
    expect(
      events.some(
        (e) =>
          e.event_type === 'service.order.created.v2' &&
          e.body.orders.some((o) => o.id === order.body.data.id),
      ),
    ).toBe(true);
    const update = events.find((e) => e.event_type === 'service.order.status.updated');
    expect(update?.verified).toBe(true);
    expect(update?.body.orders[0]).toMatchObject({ id: order.body.data.id, status: 2 });
    const after = (await s.operator('GET', '/v1/operator/webhooks')).body.data as { url: string }[];
    expect(after.map((w) => w.url)).not.toContain(l.url);
  }, 20_000);
});

describe('partner webhooks sign|verify', () => {
  it('signs the exact bytes and verifies them, exit 1 on a mismatch', async () => {
    const dir = tempDir();
    const file = join(dir, 'body.json');
    const body = '{"brand_id":1,"branch_id":2,"orders":[]}\n';
    writeFileSync(file, body);
    const signed = await runCli(['webhooks', 'sign', '--secret', 'whsec_x', file], { configDir });
    expect(signed.code).toBe(0);
    expect(signed.stdout.trim()).toBe(sign('whsec_x', body));
    const ok = await runCli(
      ['webhooks', 'verify', '--secret', 'whsec_x', '--signature', signed.stdout.trim(), file],
      { configDir },
    );
    expect(ok.code).toBe(0);
    expect(ok.stdout).toBe('valid\n');
    const bad = await runCli(
      ['webhooks', 'verify', '--secret', 'other', '--signature', signed.stdout.trim(), file],
      { configDir },
    );
    expect(bad.code).toBe(1);
    const missing = await runCli(['webhooks', 'sign', '--secret', 'x', join(dir, 'nope.json')], {
      configDir,
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read .*nope.json: no such file/);
    const fromStdin = await runCli(['webhooks', 'sign', '--secret', 'whsec_x', '-'], {
      configDir,
      stdin: body,
    });
    expect(fromStdin.stdout.trim()).toBe(sign('whsec_x', body));
  });
});

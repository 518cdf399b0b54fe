import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRecorder } from '../helpers/receiver.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';
import { cleanup, ensureBuilt, KEYS, spawnPartner, localProfile } from './harness.js';

// The local developer loop at a real terminal: `partner logs tail` shows each request as it is
// answered, coloured, and Ctrl-C typed at the terminal ends it with exit 0; `partner trigger`
// shows what it fired and what the receiver answered.

let s: TestServer;
let recorder: Awaited<ReturnType<typeof startRecorder>>;
beforeAll(async () => {
  ensureBuilt();
  s = await startTestServer({ seed: 'demo' });
  recorder = await startRecorder();
  await s.operator('POST', '/v1/operator/webhooks', {
    business_id: s.credential.businessId,
    url: recorder.url,
    event: 'all',
  });
}, 60_000);
afterAll(async () => {
  await recorder?.close();
  await s?.close();
});
afterEach(() => cleanup());

// Bounds, not speeds: under load a binary's start and a delivery take longer, never fail.
describe('at a terminal', { timeout: 120_000 }, () => {
  it('logs tail: a line per request as it is answered, the status coloured; Ctrl-C exits 0', async () => {
    const t = spawnPartner(['logs', 'tail'], { env: { PARTNER_DATA_DIR: s.dataDir }, cols: 130 });
    await t.waitFor(/Tailing requests to http:\/\/127\.0\.0\.1:\d+; Ctrl-C stops/, 30_000);
    const miss = await call(s, 'GET', '/v1/partner/orders/31337');
    const screen = await t.waitFor((rows) => rows.some((r) => r.includes(miss.body.request_id)), 30_000);
    const line = screen.find((r) => r.includes(miss.body.request_id))!;
    expect(line).toMatch(
      new RegExp(
        `^\\d\\d:\\d\\d:\\d\\d\\.\\d{3}  404  GET     /v1/partner/orders/31337 {2,}[\\d.]+ ms  ${miss.body.request_id}  ${s.credential.key}  resource_not_found$`,
      ),
    );
    expect(t.raw).toContain('\u001b[33m404'); // yellow
    t.write(KEYS.ctrlC);
    expect(await t.exit(30_000)).toBe(0);
  });

  it('logs tail at 80 columns: each line fits, the request id always shown', async () => {
    const t = spawnPartner(['logs', 'tail'], { env: { PARTNER_DATA_DIR: s.dataDir }, cols: 80 });
    await t.waitFor(/Tailing requests/, 30_000);
    const long = await call(
      s,
      'GET',
      `/v1/partner/orders?size=5&status=READY,ACCEPTED,PLACED&branch_id=1&brand_id=1`,
    );
    const ok = await call(s, 'GET', '/v1/partner/brands');
    await t.waitFor((rows) => rows.some((r) => r.includes(ok.body.request_id)), 30_000);
    const rows = t.screen();
    const a = rows.find((r) => r.includes(long.body.request_id))!;
    const b = rows.find((r) => r.includes(ok.body.request_id))!;
    expect(a).toMatch(/ {2}200 {2}GET {5}\/v1\/partner\/orders\?size=\S*… {2,}[\d.]+ ms {2}req_/);
    expect(b).toMatch(/ {2}200 {2}GET {5}\/v1\/partner\/brands {2,}[\d.]+ ms {2}req_\w+$/);
    expect(t.wrappedRows(true)).toEqual([]);
    t.write(KEYS.ctrlC);
    expect(await t.exit(30_000)).toBe(0);
  });

  it('trigger: what was fired, and what the receiver answered', async () => {
    const t = spawnPartner(['trigger', 'order.status', '--brand', '1', '--branch', '1'], {
      configDir: localProfile(s),
      env: { PARTNER_DATA_DIR: s.dataDir },
      cols: 100,
    });
    expect(await t.exit(60_000)).toBe(0);
    const text = t.history().join('\n');
    expect(text).toMatch(
      /✓ service\.order\.created\.v2 {2}order (\d+) {2}brand 1 \/ branch 1 {2}\d+ lines?, [\d.]+ IDR/,
    );
    expect(text).toMatch(
      /✓ service\.order\.status\.updated {2}order \d+ {2}brand 1 \/ branch 1 {2}PLACED → ACCEPTED/,
    );
    expect(
      text.match(/evt_\S+ → http:\/\/127\.0\.0\.1:\d+\/hook {2}delivered \(200, \d+ ms\)/g),
    ).toHaveLength(2);
    expect(t.raw).toContain('\u001b[32m✓'); // green
  });
});

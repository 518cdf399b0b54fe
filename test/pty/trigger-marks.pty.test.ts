import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRecorder } from '../helpers/receiver.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { cleanup, ensureBuilt, spawnPartner, localProfile } from './harness.js';

// `partner trigger` at a real terminal (issue 21, cosmetic): a receiver that answers 401 is no
// success, so the event's line is not marked ✓.

let s: TestServer;
let recorder: Awaited<ReturnType<typeof startRecorder>>;
beforeAll(async () => {
  ensureBuilt();
  // Retries far away: the first refused attempt is what the report shows.
  s = await startTestServer({ seed: 'demo', retrySchedule: [600_000] });
  recorder = await startRecorder(() => 401);
  const hook = await s.operator('POST', '/v1/operator/webhooks', {
    business_id: s.credential.businessId,
    url: recorder.url,
    event: 'all',
  });
  expect(hook.status).toBe(201);
}, 60_000);
afterAll(async () => {
  await recorder?.close();
  await s?.close();
});
afterEach(() => cleanup());

describe('trigger marks', () => {
  it('a receiver answering 401: not marked ✓', async () => {
    const configDir = localProfile(s);
    const t = spawnPartner(['trigger', 'order.created', '--no-color'], {
      configDir,
      env: { PARTNER_DATA_DIR: s.dataDir },
    });
    expect(await t.exit(30_000)).toBe(0);
    const text = t.history().join('\n');
    expect(text).toMatch(/service\.order\.created\.v2/);
    expect(text).not.toMatch(/✓/);
    // ✗ once the 401 is in the log, … while the attempt has no answer recorded yet: never ✓.
    expect(text).toMatch(/^[✗…] service\.order\.created\.v2/m);
  });
});

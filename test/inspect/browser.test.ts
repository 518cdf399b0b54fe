import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sign } from '../../src/webhooks/signature.js';
import { runCli } from '../cli/run-cli.js';
import { startWithProfile } from '../helpers/profile.js';
import { startRecorder } from '../helpers/receiver.js';
import { call, type TestServer } from '../helpers/server.js';
import { freshBrand } from '../server/menus-helpers.js';
import {
  type Browser,
  browserRequired,
  browserSupport,
  launchBrowser,
  screenshotDir,
  watchErrors,
} from './browser.js';
import { ensureBuilt, root, type Running, startBinary, startInProcess, tempDir } from './harness.js';

// The inspect page in a real browser (Debian's Chromium, headless, through playwright-core)
// against the real local server: what a person opening the printed URL sees.

const support = browserSupport();
if (!support.ok && !browserRequired)
  console.warn(
    `inspect browser tests skipped: ${support.reason} (PARTNER_TEST_BROWSER=required makes this a failure)`,
  );

let s: TestServer;
let configDir: string;
let browser: Browser;
let shots: string;

beforeAll(async () => {
  if (!support.ok) throw new Error(`PARTNER_TEST_BROWSER=required, but ${support.reason}`);
  ensureBuilt();
  ({ s, configDir } = await startWithProfile({ retrySchedule: [200, 400], rateLimit: 1_000_000 }));
  browser = await launchBrowser();
  shots = screenshotDir();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

/** Opens the printed URL; waits for the live stream and the first data. */
async function open(r: Running): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  // Under the test's own timeout, so a wait that fails says which.
  page.setDefaultTimeout(10_000);
  const errors = watchErrors(page);
  const res = await page.goto(r.url);
  expect(res?.status()).toBe(200);
  await page.waitForSelector('.live.on');
  await page.waitForFunction(() => performance.getEntriesByName('inspect-ready').length > 0);
  return { page, errors };
}

const rows = (page: Page) => page.locator('.vrow');

async function newOrder(items = 3): Promise<{ id: number }> {
  const r = await s.operator('POST', '/v1/operator/orders', {
    business_id: s.credential.businessId,
    brand_id: 1,
    branch_id: 1,
    items,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data;
}

async function patchStatus(id: number, status: string) {
  const r = await call(s, 'PATCH', '/v1/partner/orders/status', {
    body: { id, status, platform: 'enterprise' },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

describe.skipIf(!support.ok && !browserRequired)('partner inspect in a browser', () => {
  it('listen --local --inspect: an order walked through its statuses appears live, signatures verified', {
    timeout: 60_000,
  }, async () => {
    const listen = await startInProcess(
      ['listen', '--local', '--inspect', '--port', '0', '--data', s.dataDir, '--json'],
      { configDir },
    );
    const rec = await startRecorder();
    try {
      const listenUrl = (await listen.waitFor(/Listening on (\S+)/))[1]!;
      const { page, errors } = await open(listen);
      expect(await rows(page).count()).toBe(0);

      // Live: each step shows up on the open page without a reload.
      const order = await newOrder(3);
      await page
        .locator('.vrow', { hasText: `#${order.id}` })
        .first()
        .waitFor();
      for (const [i, status] of ['ACCEPTED', 'READY', 'DELIVERED'].entries()) {
        await patchStatus(order.id, status);
        await expect.poll(() => rows(page).count()).toBe(i + 2);
      }
      const texts = await rows(page).allInnerTexts();
      // One row per delivery listen got: the server's deliveries to listen are not listed twice.
      expect(texts).toHaveLength(4);
      for (const t of texts) {
        expect(t).toContain(`#${order.id}`);
        expect(t).toContain('verified');
        expect(t).toContain('received');
      }
      expect(texts.map((t) => /created\.v2|status\.updated/.exec(t)?.[0])).toEqual([
        'status.updated',
        'status.updated',
        'status.updated',
        'created.v2',
      ]);

      // The newest: DELIVERED, its cart as a table, the signature header shown.
      await rows(page).first().click();
      const detail = page.locator('.detail');
      await detail.locator('h4', { hasText: 'DELIVERED (5)' }).waitFor();
      const lines = await detail.locator('table.cart tbody tr').count();
      expect(lines).toBeGreaterThanOrEqual(1);
      await expect
        .poll(() => detail.locator('table.kv th', { hasText: 'x-partner-signature' }).count())
        .toBe(1);
      // The body pretty-printed, or the exact bytes that were signed.
      await detail.locator('.j-key', { hasText: '"orders"' }).first().waitFor();
      await detail.getByLabel('exact bytes (what was signed)').check();
      const raw = await detail.locator('pre.raw').innerText();
      expect(JSON.parse(raw).orders[0].status).toBe(5);
      expect(raw).not.toContain('\n');
      await detail.getByLabel('exact bytes (what was signed)').uncheck();

      // Filters: by type, by order, by status.
      await page.selectOption('select[aria-label="event type"]', 'service.order.created.v2');
      await expect.poll(() => rows(page).count()).toBe(1);
      await page.selectOption('select[aria-label="event type"]', '');
      await page.fill('input[aria-label="order"]', String(order.id + 1000));
      await expect.poll(() => rows(page).count()).toBe(0);
      await page.fill('input[aria-label="order"]', `#${order.id}`);
      await expect.poll(() => rows(page).count()).toBe(4);
      await page.fill('input[aria-label="order"]', '');

      // A delivery with a wrong signature: answered 401, shown as rejected with the reason.
      const bad = JSON.stringify({ brand_id: 1, branch_id: 1, orders: [{ id: 999_999 }] });
      const res = await fetch(listenUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-partner-signature': sign('not-the-secret', bad),
          'x-partner-event-id': 'evt_forged',
          'x-partner-event-type': 'service.order.created.v2',
        },
        body: bad,
      });
      expect(res.status).toBe(401);
      await page.selectOption('select[aria-label="status"]', 'rejected');
      await expect.poll(() => rows(page).count()).toBe(1);
      await rows(page).first().click();
      await detail.getByText('signature mismatch (answered 401)').waitFor();
      await page.selectOption('select[aria-label="status"]', '');

      // Resend the created event, exact bytes and x-partner-* headers, to another URL.
      await page
        .locator('.vrow', { hasText: 'created.v2' })
        .filter({ hasText: `#${order.id}` })
        .click();
      await detail.locator('h4', { hasText: 'PLACED (1)' }).waitFor();
      await page.fill('input[aria-label="resend to URL"]', rec.url);
      await page.click('button:has-text("Resend to URL")');
      await detail.locator('.result.ok', { hasText: '200' }).waitFor();
      const [sent] = await rec.waitFor(1);
      const got = JSON.parse(sent!.body.toString('utf8'));
      expect(got.orders[0].id).toBe(order.id);
      expect(sent!.headers['x-partner-event-type']).toBe('service.order.created.v2');
      expect(sent!.headers['x-partner-signature']).toMatch(/^[0-9a-f]{64}$/);
      await detail.locator('h3', { hasText: 'Resent' }).waitFor();

      await page.screenshot({ path: join(shots, 'inspect-webhooks.png') });
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await rec.close();
      expect(await listen.stop()).toBe(0);
    }
  });

  describe('partner inspect', () => {
    let inspect: Running;
    beforeAll(async () => {
      inspect = await startInProcess(['inspect', '--data', s.dataDir], { configDir });
    });
    afterAll(async () => {
      await inspect?.stop();
    });

    it('a replay from the page arrives at the receiver with the same event id', async () => {
      const rec = await startRecorder();
      const hook = await s.operator('POST', '/v1/operator/webhooks', {
        business_id: s.credential.businessId,
        url: rec.url,
        event: 'service.order.created.v2',
      });
      expect(hook.status).toBe(201);
      try {
        const { page, errors } = await open(inspect);
        const order = await newOrder(2);
        const [first] = await rec.waitFor(1);
        const eventId = first!.headers['x-partner-event-id'];
        const row = page.locator('.vrow', { hasText: `#${order.id}` }).filter({ hasText: 'delivered' });
        await row.waitFor();
        expect(await row.innerText()).toContain(String(eventId));
        await row.click();
        await page.click('button:has-text("Replay")');
        await page.locator('.result.ok', { hasText: `replayed ${eventId}` }).waitFor();
        const got = await rec.waitFor(2);
        expect(got[1]!.headers['x-partner-event-id']).toBe(eventId);
        expect(got[1]!.body.equals(first!.body)).toBe(true);
        // The row follows: a second attempt in its log.
        await expect
          .poll(() => page.locator('.detail table.grid').last().locator('tbody tr').count(), {
            timeout: 10_000,
          })
          .toBe(2);
        expect(errors).toEqual([]);
        await page.close();
      } finally {
        await s.operator('DELETE', `/v1/operator/webhooks/${hook.body.data.id}`);
        await rec.close();
      }
    });

    it('a pushed menu shows in Menu preview with a snoozed item badged, and what the next publish changed', async () => {
      const { brandId, branches } = await freshBrand(s, s.credential, 'Warung Inspect');
      const branchId = branches[0]!;
      const file = join(tempDir('partner-menu-'), 'menu.yaml');
      copyFileSync(join(root, 'docs/examples/menu.sample.yaml'), file);
      const push = await runCli(
        ['menu', 'push', file, '--brand', String(brandId), '--branch', String(branchId), '--yes'],
        {
          configDir,
        },
      );
      expect(push.code, push.stderr).toBe(0);
      const snooze = await runCli(
        ['items', 'snooze', 'SKU-NG', '--branch', String(branchId), '--for', '30m'],
        {
          configDir,
        },
      );
      expect(snooze.code, snooze.stderr).toBe(0);

      const { page, errors } = await open(inspect);
      await page.click('#tab-menu');
      await page.selectOption('select[aria-label="brand"]', String(brandId));
      await page.selectOption('select[aria-label="branch"]', String(branchId));
      const ng = page.locator('article.item[data-sku="SKU-NG"]');
      await ng.locator('.badge.snoozed', { hasText: 'snoozed until' }).waitFor();
      expect(await ng.locator('h4').innerText()).toBe('Nasi goreng');
      // Prices per provider, modifier groups with their bounds.
      expect(await ng.locator('.price').allInnerTexts()).toEqual([
        expect.stringMatching(/35,000.*GrabFood/),
        expect.stringMatching(/38,000.*GoFood/),
      ]);
      expect(await ng.locator('.mg-title').allInnerTexts()).toEqual([
        'Spice level · required, pick 1',
        'Extra toppings · optional, up to 3',
      ]);
      await page.getByText('no earlier publish seen').waitFor();

      // The next publish: one price changed, one item added; the page shows both on its next read.
      const text = readFileSync(file, 'utf8')
        .replace(
          'partner_item_id: SKU-MG, prices: {"1": "33000.00"',
          'partner_item_id: SKU-MG, prices: {"1": "34000.00"',
        )
        .replace(
          '          - {key: es-teh,',
          '          - {key: es-kelapa, title: Es kelapa muda, partner_item_id: SKU-EKM, prices: {"1": "12000.00", "2": "13000.00"}}\n          - {key: es-teh,',
        );
      writeFileSync(file, text);
      const again = await runCli(
        ['menu', 'push', file, '--brand', String(brandId), '--branch', String(branchId), '--yes'],
        {
          configDir,
        },
      );
      expect(again.code, again.stderr).toBe(0);
      await page
        .locator('article.item[data-sku="SKU-MG"] .ribbon.upd', { hasText: 'changed: prices' })
        .waitFor({ timeout: 10_000 });
      await page.locator('article.item[data-sku="SKU-EKM"] .ribbon.new').waitFor();
      await page.getByText('compared with v1').waitFor();
      expect(await page.locator('article.item[data-sku="SKU-NG"] .ribbon').count()).toBe(0);

      // Tall enough for the changed and the new item in one picture.
      await page.setViewportSize({ width: 1400, height: 1500 });
      await page.locator('article.item[data-sku="SKU-MG"]').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(shots, 'inspect-menu.png') });
      expect(errors).toEqual([]);
      await page.close();
    });

    it('the Requests view shows a request made by the test, live, with its id and both bodies', async () => {
      const { page, errors } = await open(inspect);
      await page.click('#tab-requests');
      const made = await call(s, 'GET', '/v1/partner/brands');
      expect(made.status).toBe(200);
      const id = made.body.request_id;
      expect(made.headers.get('x-request-id')).toBe(id);
      const row = page.locator('.vrow', { has: page.locator('.c-rid', { hasText: id }) });
      await row.waitFor();
      expect(await row.innerText()).toMatch(
        new RegExp(`GET\\s+/v1/partner/brands\\s+200\\s.*${id}.*${s.credential.key}`, 's'),
      );
      const missing = await call(s, 'GET', '/v1/partner/branches/999999');
      expect(missing.status).toBe(404);
      await page.locator('.vrow .c-rid', { hasText: missing.body.request_id }).waitFor();

      // Filters: the 4xx only; the path.
      await page.selectOption('select[aria-label="status"]', '4xx');
      await expect.poll(() => row.count()).toBe(0);
      await page.locator('.vrow .c-rid', { hasText: missing.body.request_id }).waitFor();
      await page.selectOption('select[aria-label="status"]', '');
      await page.fill('input[aria-label="path"]', '/v1/partner/brands');
      await expect
        .poll(() => page.locator('.vrow .c-rid', { hasText: missing.body.request_id }).count())
        .toBe(0);
      await page.fill('input[aria-label="path"]', '');
      // inspect's own requests only when asked for: the delivery feed it polls (known by its path)
      // and the menu preview's reads of the test before (known by their request ids).
      const own = page.locator('.vrow .c-path', { hasText: '/v1/operator/webhooks/deliveries' });
      const menuReads = page.locator('.vrow .c-path', { hasText: '/v1/partner/menus?brand_id=' });
      expect(await own.count()).toBe(0);
      expect(await menuReads.count()).toBe(0);
      await page.check('label.check input');
      await own.first().waitFor();
      await menuReads.first().waitFor();
      await page.uncheck('label.check input');

      // Both sides in full; the credential is not in what the server logged.
      await row.click();
      const detail = page.locator('.detail');
      await detail.locator('h2', { hasText: '/v1/partner/brands' }).waitFor();
      await detail.locator('table.meta td', { hasText: id }).waitFor();
      await detail.locator('h3', { hasText: 'Response' }).waitFor();
      await detail.locator('.j-key', { hasText: '"brands"' }).first().waitFor();
      expect(await detail.innerText()).not.toContain(s.credential.secret);
      await page.screenshot({ path: join(shots, 'inspect-requests.png') });
      expect(errors).toEqual([]);
      await page.close();
    });

    it('a request without the token gets 401, in the browser too', async () => {
      const page = await browser.newPage();
      const res = await page.goto(`${inspect.origin}/`);
      expect(res?.status()).toBe(401);
      const status = await page.evaluate(async () => (await fetch('/api/webhooks')).status);
      expect(status).toBe(401);
      await page.close();
    });
  });

  it('a page whose run ended says so once another run serves its port', async () => {
    const first = await startInProcess(['inspect', '--data', s.dataDir, '--port', '0'], { configDir });
    const port = new URL(first.url).port;
    const { page, errors } = await open(first);
    expect(await first.stop()).toBe(0);
    await page.locator('.live.off').waitFor();
    const second = await startInProcess(['inspect', '--data', s.dataDir, '--port', port], { configDir });
    try {
      expect(second.token).not.toBe(first.token);
      await page.getByText('The partner run this page belongs to has ended').waitFor();
      // The refused reconnections while no run served the port are the only errors logged.
      expect(errors.filter((e) => !/ERR_CONNECTION_REFUSED|Failed to load resource|401/.test(e))).toEqual([]);
      await page.close();
    } finally {
      expect(await second.stop()).toBe(0);
    }
  });

  // How fast is a figure for `npm run bench -- inspect` (target there: median first contentful
  // paint ≤ 300 ms); a test on a loaded machine only checks that the page paints and draws.
  it('the built binary: the page paints (header first), then draws with its data (Performance API)', async () => {
    const inspect = await startBinary(['inspect', '--data', s.dataDir], { PARTNER_CONFIG_DIR: configDir });
    try {
      const page = await browser.newPage();
      await page.goto(inspect.url);
      // Both entries: the paint's is reported after its frame is presented, which on a busy
      // machine can come after the page has marked itself ready.
      await page.waitForFunction(
        () =>
          performance.getEntriesByName('inspect-ready').length > 0 &&
          performance.getEntriesByName('first-contentful-paint').length > 0,
      );
      const { fcp, ready } = await page.evaluate(() => ({
        fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN,
        ready: performance.getEntriesByName('inspect-ready')[0]!.startTime,
      }));
      console.log(
        `inspect page: first contentful paint ${Math.round(fcp)} ms, drawn with its data ${Math.round(ready)} ms`,
      );
      expect(Number.isFinite(fcp)).toBe(true);
      expect(fcp).toBeGreaterThan(0);
      expect(ready).toBeGreaterThan(0);
      await page.close();
    } finally {
      expect(await inspect.stop()).toBe(0);
    }
  });

  it('holds 10,000 events: the DOM stays small, scrolling and filtering work', async () => {
    const secret = 'whsec_inspect_many';
    const listen = await startInProcess(
      ['listen', '--secret', secret, '--port', '0', '--inspect', '--json'],
      {
        configDir,
      },
    );
    try {
      const url = (await listen.waitFor(/Listening on (\S+?);/))[1]!;
      const types = [
        'service.order.created.v2',
        'service.order.status.updated',
        'service.order.cart.updated',
      ];
      const N = 10_000;
      let next = 0;
      const send = async () => {
        while (next < N) {
          const i = next++;
          const body = JSON.stringify({
            brand_id: 1,
            branch_id: 1,
            orders: [
              { id: i + 1, status: 1, updated_at: new Date(1_700_000_000_000 + i).toISOString(), cart: [] },
            ],
          });
          const r = await fetch(url, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'x-partner-signature': sign(secret, body),
              'x-partner-event-id': `evt_many_${i + 1}`,
              'x-partner-event-type': types[i % 3]!,
            },
            body,
          });
          expect(r.status).toBe(200);
        }
      };
      const started = Date.now();
      await Promise.all(Array.from({ length: 16 }, send));
      const sentMs = Date.now() - started;

      const { page, errors } = await open(listen);
      await page.getByText('10000 events').waitFor({ timeout: 20_000 });
      const domRows = await rows(page).count();
      expect(domRows).toBeLessThan(80);
      console.log(`10,000 events delivered in ${sentMs} ms; ${domRows} rows in the DOM`);

      // Scrolled to the end: the oldest event, still only a screenful of rows in the DOM.
      await page.locator('.vlist').evaluate((el) => {
        el.scrollTop = el.scrollHeight;
      });
      const idCell = (id: string) => page.locator('.vrow .c-id', { hasText: new RegExp(`^${id}$`) });
      await idCell('evt_many_1').waitFor();
      expect(await rows(page).count()).toBeLessThan(80);
      // Filtered: one order, one type.
      await page.fill('input[aria-label="order"]', '4321');
      await expect.poll(() => rows(page).count()).toBe(1);
      expect(await rows(page).first().innerText()).toContain('evt_many_4321');
      await page.fill('input[aria-label="order"]', '');
      await page.selectOption('select[aria-label="event type"]', 'service.order.cart.updated');
      await page.getByText('3333 of 10000 events').waitFor();
      // One more: it arrives, the oldest leaves (10,000 held, here and in the CLI process).
      await page.selectOption('select[aria-label="event type"]', '');
      const last = JSON.stringify({
        brand_id: 1,
        branch_id: 1,
        orders: [{ id: N + 1, status: 1, cart: [] }],
      });
      const r = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-partner-signature': sign(secret, last),
          'x-partner-event-id': `evt_many_${N + 1}`,
          'x-partner-event-type': types[0]!,
        },
        body: last,
      });
      expect(r.status).toBe(200);
      await page.locator('.vlist').evaluate((el) => {
        el.scrollTop = 0;
      });
      await idCell(`evt_many_${N + 1}`).waitFor();
      await page.getByText('10000 events').waitFor();
      await page.locator('.vlist').evaluate((el) => {
        el.scrollTop = el.scrollHeight;
      });
      await idCell('evt_many_2').waitFor();
      expect(await idCell('evt_many_1').count()).toBe(0);
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      expect(await listen.stop()).toBe(0);
    }
  }, 120_000);

  it('at 1280 px a whole event id shows in the list (issue 21: it was cut to evt_…)', async () => {
    const secret = 'whsec_inspect_width';
    const listen = await startInProcess(
      ['listen', '--secret', secret, '--port', '0', '--inspect', '--json'],
      {
        configDir,
      },
    );
    try {
      const url = (await listen.waitFor(/Listening on (\S+?);/))[1]!;
      const body = JSON.stringify({ brand_id: 1, branch_id: 1, orders: [{ id: 7, status: 1, cart: [] }] });
      // An id as the server mints them.
      const id = 'evt_12_oJyI1DVlTyCcOtQA';
      const r = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-partner-signature': sign(secret, body),
          'x-partner-event-id': id,
          'x-partner-event-type': 'service.order.created.v2',
        },
        body,
      });
      expect(r.status).toBe(200);
      const { page, errors } = await open(listen);
      await page.setViewportSize({ width: 1280, height: 800 });
      const cell = page.locator('.vrow .c-id', { hasText: id });
      await cell.waitFor();
      const fits = await cell.evaluate((el) => el.scrollWidth <= el.clientWidth);
      expect(fits, 'the event id cell cuts its text').toBe(true);
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      expect(await listen.stop()).toBe(0);
    }
  }, 60_000);
});

import { formatDuration } from '../../contract/duration.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Chalk } from 'chalk';
import type { PartnerClient } from '../../client/client.js';
import { STATUS_ID } from '../../contract/order-statuses.js';
import type { RunningServer } from '../../server/index.js';
import { type Ctx, routesOf } from '../context.js';
import { wrapColumns } from '../io.js';
import { wrapForTerminal } from '../output/text-width.js';
import type { Receiver, ReceivedEvent } from '../listen/receiver.js';
import { collectBootstrap, saveDefaults } from './bootstrap-run.js';
import { parseSampleMenu, pushSampleMenu } from '../flows/demo-menu-push.js';
import { SAMPLE_MENU_YAML } from '../flows/demo-sample-menu.js';
import { sleepOrWake, stopper, Wake } from '../flows/orders-watch-time.js';
import { plural } from '../output/words.js';
import type { DemoOptions } from './demo.js';

// `partner demo` (docs/flows.md): a throw-away local server in a temp dir, the bootstrap, the
// sample menu pushed, an in-process webhook listener, one simulated order walked PLACED →
// ACCEPTED → READY → DELIVERED with the signed events printed as they arrive, then everything
// removed. Nothing of the user's (profiles, data dir) is read or written.

type Rec = Record<string, unknown>;

const WALK = ['ACCEPTED', 'READY', 'DELIVERED'] as const;

export async function runDemo(ctx: Ctx, opts: DemoOptions): Promise<number> {
  const { io } = ctx;
  const timeoutMs = opts.timeout;
  const json = ctx.json;
  // With --json stdout carries only the events; the narration goes to stderr.
  const narr = json ? io.stderr : io.stdout;
  const c = new Chalk({ level: (json ? ctx.colorErr : ctx.color) ? 1 : 0 });
  const cols = wrapColumns(io, json ? 'stderr' : 'stdout');
  const say = (s = '') => narr.write(wrapForTerminal(`${s}\n`, cols));
  const step = (n: number, title: string, rest: string) =>
    say(`${c.bold(`${n}. ${title.padEnd(13)}`)} ${rest}`);
  const t0 = performance.now();

  const tmp = mkdtempSync(join(tmpdir(), 'partner-demo-'));
  const stop = stopper(io);
  let server: RunningServer | undefined;
  let receiver: Receiver | undefined;
  const clients: PartnerClient[] = [];
  const events: ReceivedEvent[] = [];
  const used = new Set<ReceivedEvent>();
  const arrived = new Wake();

  /** The first not yet used event matching `pred`, waited for at most `timeoutMs`. */
  const waitFor = async (what: string, pred: (e: ReceivedEvent) => boolean): Promise<ReceivedEvent> => {
    const until = performance.now() + timeoutMs;
    for (;;) {
      const hit = events.find((e) => !used.has(e) && !e.duplicate && pred(e));
      if (hit) {
        used.add(hit);
        return hit;
      }
      if (stop.stopped) throw new Error(`demo interrupted (${stop.reason}) while waiting for ${what}`);
      const left = until - performance.now();
      if (left <= 0) throw new Error(`no ${what} arrived within ${formatDuration(timeoutMs)}`);
      await sleepOrWake(left, [arrived.next(), stop.promise]);
    }
  };
  const ordersOf = (e: ReceivedEvent) => {
    const list = (e.body as { orders?: unknown } | null)?.orders;
    return Array.isArray(list) ? (list as Rec[]) : [];
  };

  try {
    say(
      c.bold(
        'partner demo — a tour against a throw-away local server (your profiles and data are not touched)',
      ),
    );
    say();
    const [{ startServer }, { PartnerClient }, { startReceiver }, fmt] = await Promise.all([
      import('../../server/index.js'),
      import('../../client/client.js'),
      import('../listen/receiver.js'),
      import('../listen/format.js'),
    ]);
    server = await startServer({
      dataDir: join(tmp, 'data'),
      host: '127.0.0.1',
      port: 0,
      seed: 'demo',
      // Webhook retries in a second, not minutes: the demo must never sit waiting.
      retrySchedule: [200, 500, 1000],
      version: __PARTNER_VERSION__,
    });
    const cred = server.seeded[0];
    if (!cred) throw new Error('the demo seed issued no credential');
    step(1, 'Local server', `${server.baseUrl} · demo seed · data in ${tmp} (removed at the end)`);

    const routes = routesOf(ctx.manifest);
    const userAgent = `partner-cli/${__PARTNER_VERSION__} demo`;
    const partner = new PartnerClient({
      baseUrl: server.baseUrl,
      credential: { key: cred.key, secret: cred.secret },
      routes,
      userAgent,
    });
    const operator = new PartnerClient({
      baseUrl: server.baseUrl,
      operatorToken: server.operatorToken,
      routes,
      userAgent,
    });
    clients.push(partner, operator);

    // 2. Bootstrap, as `partner bootstrap` does it, with a profile in a temp config dir.
    const configDir = join(tmp, 'config');
    const { openProfiles } = await import('../profiles.js');
    const profile = { name: 'demo', base_url: server.baseUrl, key: cred.key, secret: cred.secret };
    openProfiles({ configDir }).save(profile);
    const found = await collectBootstrap(partner, {
      profile: 'demo',
      base_url: server.baseUrl,
      key: cred.key,
    });
    const brand =
      found.brands.find((b) => /nasi/i.test(String(b.title))) ?? (found.brands[0] as Rec | undefined);
    if (!brand) throw new Error('the demo business has no brand');
    const brandId = Number(brand.id);
    const branch = found.branches.find((b) => Array.isArray(b.brand_ids) && b.brand_ids.includes(brandId));
    if (!branch) throw new Error(`no branch carries brand ${brandId}`);
    const branchId = Number(branch.id);
    await saveDefaults(configDir, profile, { brand_id: brandId, branch_id: branchId });
    const scopes = found.scopes.missing.length
      ? `missing scopes: ${found.scopes.missing.join(', ')}`
      : `all ${plural(found.scopes.checked.length, 'scope')} checked are held`;
    step(
      2,
      'Bootstrap',
      `"${String(found.business?.title ?? '?')}": ${plural(found.brands.length, 'brand')}, ${plural(found.branches.length, 'branch', 'branches')}, ${plural(found.providers.length, 'provider')}, ${plural(found.statuses.length, 'order status', 'order statuses')}; ${scopes}`,
    );
    say(
      `   ${c.dim(`branch #${branchId} ${String(branch.title)}: ${branch.opening_hours ?? 'no opening hours'}`)}`,
    );

    // 3. The sample menu.
    const menu = parseSampleMenu(SAMPLE_MENU_YAML);
    const pushed = await pushSampleMenu(partner, menu, brandId);
    step(
      3,
      'Menu push',
      `sample menu → brand #${brandId} "${String(brand.title)}": ${plural(pushed.sections, 'section')}, ${plural(pushed.categories, 'category', 'categories')}, ${plural(pushed.items, 'item')}, ${plural(pushed.modifier_groups, 'modifier group')} (${plural(pushed.modifiers, 'modifier')}) in ${plural(pushed.calls, 'call')}; published version ${pushed.version} to ${pushed.branches.length === 1 ? 'branch' : 'branches'} ${pushed.branches.join(', ')}`,
    );

    // 4. The listener: the business's webhook secret, a receiver on a free port, a registration.
    const businessId = cred.business_id;
    const { webhook_secret_key: secret } = (await operator.call('operatorWebhookSecret', {
      body: { business_id: businessId },
    })) as { webhook_secret_key: string };
    receiver = await startReceiver({
      host: '127.0.0.1',
      port: 0,
      secret,
      onEvent: (e) => {
        events.push(e);
        if (json) io.stdout.write(fmt.jsonLine(e));
        else say(`${fmt.prettyEvent(e, ctx.color)}${c.dim('    ✓ signature verified')}`);
        arrived.fire();
      },
      onRejected: (r) => io.stderr.write(`rejected ${r.event_id ?? '(no event id)'}: ${r.reason}\n`),
    });
    await operator.call('operatorAddWebhook', {
      body: { business_id: businessId, url: receiver.url, event: 'all' },
    });
    step(
      4,
      'Webhooks',
      `listening on ${receiver.url} for every event of business ${businessId}; signatures checked with its webhook_secret_key`,
    );

    // 5. One order, start to finish.
    const order = (await operator.call('operatorCreateOrder', {
      body: { business_id: businessId, brand_id: brandId, branch_id: branchId, items: 2 },
    })) as Rec;
    const id = Number(order.id);
    step(
      5,
      'Order',
      `simulated marketplace order #${id} at branch #${branchId} (PLACED, ${String(order.total)} ${String(order.currency)})`,
    );
    await waitFor(
      `service.order.created.v2 for order #${id}`,
      (e) => e.event_type === 'service.order.created.v2' && ordersOf(e).some((o) => o.id === id),
    );
    for (const status of WALK) {
      say(c.cyan(`   PATCH /v1/partner/orders/status {id: ${id}, status: "${status}"}`));
      await partner.call('patchOrderStatus', { body: { id, status, platform: 'enterprise' } });
      await waitFor(
        `service.order.status.updated (${status}) for order #${id}`,
        (e) =>
          e.event_type === 'service.order.status.updated' &&
          ordersOf(e).some((o) => o.id === id && o.status === STATUS_ID[status]),
      );
    }
    say();
    say(
      `${c.green('Done:')} ${used.size} signed events received and verified in ${formatDuration(performance.now() - t0)}.`,
    );
  } finally {
    stop.dispose();
    // The server first (its dispatcher stops delivering), then the listener, then the files.
    await server?.close().catch(() => undefined);
    await receiver?.close().catch(() => undefined);
    await Promise.all(clients.map((cl) => cl.close().catch(() => undefined)));
    rmSync(tmp, { recursive: true, force: true });
    say(c.dim(`Cleaned up: server stopped, ${tmp} removed.`));
  }
  say(
    c.dim(
      'Next: `partner local start --seed demo`, then `partner bootstrap`, `partner orders watch`, `partner listen --local`.',
    ),
  );
  return 0;
}

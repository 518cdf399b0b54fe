import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseSampleMenu } from '../../src/cli/flows/demo-menu-push.js';
import { SAMPLE_MENU_YAML } from '../../src/cli/flows/demo-sample-menu.js';
import { runCli, tempDir } from './run-cli.js';

// `partner demo`, end to end and in-process: a throw-away server, the sample menu, one order
// walked to DELIVERED, and the four signed webhook events it produces.

const STATUS_EVENT = 'service.order.status.updated';
const CREATED_EVENT = 'service.order.created.v2';

describe('partner demo', () => {
  it('runs end to end: four verified events (created + 3 status updates), then cleans up', async () => {
    const configDir = tempDir('partner-demo-cfg-');
    const t = Date.now();
    const r = await runCli(['demo'], { configDir, env: { NO_COLOR: '1' } });
    const ms = Date.now() - t;
    expect(r.code, r.stderr).toBe(0);
    // How long it takes is printed, not bounded: a busy machine is no defect of the demo.
    console.log(`partner demo ran in ${ms} ms`);

    const heads = r.stdout.split('\n').filter((l) => l.startsWith('--> '));
    expect(heads.map((l) => l.split(' ')[1])).toEqual([
      CREATED_EVENT,
      STATUS_EVENT,
      STATUS_EVENT,
      STATUS_EVENT,
    ]);
    const orderLines = r.stdout.split('\n').filter((l) => /^\s+order #\d+ /.test(l));
    expect(orderLines.map((l) => l.match(/order #\d+ (\S+)/)![1])).toEqual([
      'PLACED',
      'ACCEPTED',
      'READY',
      'DELIVERED',
    ]);
    expect(r.stdout.match(/✓ signature verified/g)).toHaveLength(4);
    expect(r.stdout).toMatch(/Done: 4 signed events received and verified/);
    for (const step of ['1. Local server', '2. Bootstrap', '3. Menu push', '4. Webhooks', '5. Order'])
      expect(r.stdout).toContain(step);
    expect(r.stdout).toMatch(
      /Menu push\s+sample menu → brand #\d+ .*: 2 sections, 4 categories, 8 items, 2 modifier groups/,
    );

    // The temp dir is gone, and the user's config dir was never touched.
    const tmp = r.stdout.match(/data in (\S+) \(removed at the end\)/)![1]!;
    expect(existsSync(tmp)).toBe(false);
    expect(readdirSync(configDir)).toEqual([]);
    expect(r.stderr).toBe('');
  });

  it('--json prints the events as JSON lines (narration on stderr)', async () => {
    const r = await runCli(['demo', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events).toHaveLength(4);
    expect(events.map((e) => e.event_type)).toEqual([
      CREATED_EVENT,
      STATUS_EVENT,
      STATUS_EVENT,
      STATUS_EVENT,
    ]);
    for (const e of events) {
      expect(e).toMatchObject({ verified: true, duplicate: false, stale: false, attempt: 1 });
      expect(e.event_id).toMatch(/^evt_/);
    }
    expect(new Set(events.map((e) => e.event_id)).size).toBe(4);
    const orderId = events[0].body.orders[0].id;
    expect(events.map((e) => e.body.orders.find((o: { id: number }) => o.id === orderId)?.status)).toEqual([
      1, 2, 4, 5,
    ]);
    expect(r.stderr).toContain('1. Local server');
  });
});

describe('the embedded sample menu', () => {
  it('says what the sample of the docs says', () => {
    // Both copies are in the repository: a missing one fails the test rather than being skipped.
    const copies = ['docs/examples/menu.sample.yaml', 'test/fixtures/menu.sample.yaml'];
    const menu = parseSampleMenu(SAMPLE_MENU_YAML);
    for (const f of copies)
      expect(menu, f).toEqual(parse(readFileSync(new URL(`../../${f}`, import.meta.url), 'utf8')));
    expect(menu.sections.length).toBe(2);
    expect(menu.modifierGroups?.length).toBe(2);
  });
});

import { describe, expect, it } from 'vitest';
import { profileDir, runCli } from './run-cli.js';

// Input the CLI can judge by itself is refused with exit 2 and a message naming the flag, before
// any request: the profile points at a port where nothing listens, so a request would exit 7.

const configDir = profileDir('http://127.0.0.1:9', { key: 'pk_nowhere', secret: 'sk_nowhere' });
const cli = (argv: string[]) => runCli(argv, { configDir, now: Date.parse('2025-06-01T12:00:00Z') });

describe('checks made before any request', () => {
  it('orders patch --status FOO lists only the statuses a partner may set', async () => {
    const r = await cli(['orders', 'patch', '24', '--status', 'FOO']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--status/);
    expect(r.stderr).toMatch(/ACCEPTED, READY, DELIVERED, CANCELLED/);
    expect(r.stderr).not.toMatch(/PLACED|VOID|network/);
  });

  it.each([['PLACED'], ['1'], ['void'], ['11'], ['DRIVER ASSIGNED']])(
    'orders patch --status %s is refused: not a status a partner may set',
    async (status) => {
      const r = await cli(['orders', 'patch', '24', '--status', status]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--status/);
    },
  );

  it.each([['ready'], ['Ready'], ['4'], ['cancelled']])(
    'orders patch --status %s passes the check (code or id, any case)',
    async (status) => {
      // A reason only with CANCELLED: with another status it is refused (issue 21).
      const reason = /^cancel/i.test(status) ? ['--reason', 'test'] : [];
      const r = await cli(['orders', 'patch', '24', '--status', status, ...reason]);
      // Through the check: the request is attempted and finds nobody listening.
      expect(r.code).toBe(7);
    },
  );

  it('orders list --from yesterday: not ISO 8601, names the flag and the accepted forms', async () => {
    const r = await cli(['orders', 'list', '--from', 'yesterday']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--from/);
    expect(r.stderr).toMatch(/ISO 8601/);
    expect(r.stderr).toMatch(/24h/);
  });

  it('orders list --from 24h and --to now are accepted (relative forms)', async () => {
    const r = await cli(['orders', 'list', '--from', '7d', '--to', 'now', '--verbose']);
    expect(r.code).toBe(7);
    expect(r.stderr).toContain('from=2025-05-25T12%3A00%3A00.000Z');
    expect(r.stderr).toContain('to=2025-06-01T12%3A00%3A00.000Z');
  });

  it.each([['0'], ['101'], ['-1'], ['x']])('orders list --size %s: 1 to 100', async (size) => {
    const r = await cli(['orders', 'list', '--size', size]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--size/);
  });

  it('orders list --page 0: at least 1', async () => {
    const r = await cli(['orders', 'list', '--page', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--page must be at least 1/);
  });

  it('menu get --brand 1 without --branch: both or neither', async () => {
    for (const argv of [
      ['menu', 'get', '--brand', '1'],
      ['menu', 'get', '--branch', '2'],
    ]) {
      const r = await cli(argv);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--brand and --branch go together/);
    }
  });
});

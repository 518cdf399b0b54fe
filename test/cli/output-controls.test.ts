import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Io } from '../../src/cli/io.js';
import { run } from '../../src/cli/program.js';
import { sign } from '../../src/webhooks/signature.js';
import { startWithProfile } from '../helpers/profile.js';
import { call, type TestServer } from '../helpers/server.js';
import { fakePrompter, runCli } from './run-cli.js';

// Output controls (issue 15 point 1): --json FIELDS, --jq, --template on the real server, and
// one output shape per list command with or without --all.

let s: TestServer;
let configDir: string;

beforeAll(async () => {
  ({ s, configDir } = await startWithProfile());
});
afterAll(async () => {
  await s?.close();
});

const cli = (argv: string[], o: Parameters<typeof runCli>[1] = {}) => runCli(argv, { configDir, ...o });
const requests = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('* ')).length;

describe('--json FIELDS', () => {
  it('narrows each record of a page and keeps the page', async () => {
    const r = await cli(['branches', 'list', '--json', 'id,title']);
    expect(r.code).toBe(0);
    const direct = (await call(s, 'GET', '/v1/partner/branches')).body.data;
    const out = JSON.parse(r.stdout);
    expect(out).toEqual({
      ...direct,
      results: direct.results.map((b: { id: number; title: string }) => ({ id: b.id, title: b.title })),
    });
  });

  it('narrows a list and a single record', async () => {
    const list = await cli(['orders', 'statuses', '--json=id,status']);
    expect(JSON.parse(list.stdout)[3]).toEqual({ id: 4, status: 'READY' });
    const order = (await call(s, 'GET', '/v1/partner/orders?size=1')).body.data.results[0];
    const one = await cli(['orders', 'get', String(order.id), '--json', 'id,status,total']);
    expect(JSON.parse(one.stdout)).toEqual({ id: order.id, status: order.status, total: order.total });
  });

  it('an unknown field: exit 2 listing the available fields, before any request', async () => {
    const r = await cli(['branches', 'list', '--json', 'id,titel', '--verbose']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^error: unknown --json field "titel" for branches list; available fields:\n {2}address\n/,
    );
    expect(r.stderr).toMatch(/\n {2}title\n/);
    expect(requests(r.stderr)).toBe(0);
    expect(r.stdout).toBe('');
  });

  it('a write with an unknown field is refused before it is sent', async () => {
    const order = (await call(s, 'GET', '/v1/partner/orders?size=100')).body.data.results.find(
      (o: { status: number }) => o.status === 1,
    );
    const r = await cli(['orders', 'patch', String(order.id), '--status', 'ACCEPTED', '--json', 'stauts']);
    expect(r.code).toBe(2);
    expect((await call(s, 'GET', `/v1/partner/orders/${order.id}`)).body.data.status).toBe(1);
  });

  it('a bare --json before an argument is the whole payload, not a field list', async () => {
    const order = (await call(s, 'GET', '/v1/partner/orders?size=1')).body.data.results[0];
    const r = await cli(['orders', 'get', '--json', String(order.id)]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual((await call(s, 'GET', `/v1/partner/orders/${order.id}`)).body.data);
    const g = await cli(['--json', 'orders', 'statuses']);
    expect(JSON.parse(g.stdout)).toHaveLength(11);
  });

  it('commands outside the operation table are checked against what they print', async () => {
    const ok = await cli(['profiles', 'list', '--json', 'name,storage']);
    expect(JSON.parse(ok.stdout)).toEqual([{ name: 'local', storage: expect.any(String) }]);
    const bad = await cli(['profiles', 'list', '--json', 'nme']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /unknown --json field "nme" for profiles list; available fields:\n {2}base_url/,
    );
  });
});

describe('--jq', () => {
  it('filters with real jq; strings raw; compact when piped, indented on a terminal', async () => {
    const names = await cli(['orders', 'statuses', '--jq', '.[] | select(.id <= 3) | .status']);
    expect(names.code).toBe(0);
    expect(names.stdout).toBe('PLACED\nACCEPTED\nCANCELLED\n');
    const piped = await cli(['orders', 'statuses', '--jq', '.[0] | {id, status}']);
    expect(piped.stdout).toBe('{"id":1,"status":"PLACED"}\n');
    const tty = await cli(['orders', 'statuses', '--jq', '.[0] | {id, status}'], { tty: true });
    // On a terminal also coloured as jq colours (test/pty/jq-colour.pty.test.ts); the text beneath:
    expect(tty.stdout).toContain('\u001b[');
    expect(tty.stdout.replace(/\u001b\[[0-9;]*m/g, '')).toBe('{\n  "id": 1,\n  "status": "PLACED"\n}\n');
  });

  it('runs after the field selection, and implies --json', async () => {
    const r = await cli(['branches', 'list', '--json', 'id', '--jq', '.results | map(.id) | add'], {
      tty: true,
    });
    const total = (await call(s, 'GET', '/v1/partner/branches')).body.data.results.reduce(
      (a: number, b: { id: number }) => a + b.id,
      0,
    );
    expect(r.stdout.replace(/\u001b\[[0-9;]*m/g, '')).toBe(`${total}\n`);
  });

  it('a syntax error is a usage error before any request; a runtime error exits 1', async () => {
    const syntax = await cli(['orders', 'statuses', '--jq', '.[0', '--verbose']);
    expect(syntax.code).toBe(2);
    expect(syntax.stderr).toMatch(/^error: --jq: jq: error: syntax error/);
    expect(requests(syntax.stderr)).toBe(0);
    const runtime = await cli(['orders', 'statuses', '--jq', '.[0].status.x']);
    expect(runtime.code).toBe(1);
    expect(runtime.stderr).toMatch(/^error: --jq: jq: error .*Cannot index string with string "x"/);
  });

  it('works on commands that are not operations; refuses output that is not JSON', async () => {
    const p = await cli(['profiles', 'list', '--jq', '.[].name']);
    expect(p.stdout).toBe('local\n');
    const c = await cli(['completion', 'bash', '--jq', '.']);
    expect(c.code).toBe(2);
    expect(c.stderr).toBe('error: --jq needs JSON output, and this command printed other text\n');
  });

  it('--jq and --template together are a usage error', async () => {
    const r = await cli(['orders', 'statuses', '--jq', '.', '--template', '{{id}}']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--jq and --template cannot be used together/);
  });

  it('filters a stream value by value as it comes (listen --json)', async () => {
    let out = '';
    let lineWritten!: () => void;
    const firstLine = new Promise<void>((r) => {
      lineWritten = r;
    });
    let stop!: (s: string) => void;
    const stopped = new Promise<string>((r) => {
      stop = r;
    });
    let listening!: (url: string) => void;
    const url = new Promise<string>((r) => {
      listening = r;
    });
    const secret = 'whsec_stream_test';
    const io: Io = {
      stdout: {
        write: (c: string) => {
          out += c;
          if (out.includes('\n')) lineWritten();
          return true;
        },
      },
      stderr: {
        write: (c: string) => {
          const m = /Listening on (\S+?)[;\s]/.exec(c);
          if (m) listening(m[1]!);
          return true;
        },
      },
      stdin: Readable.from([]),
      stdoutIsTTY: false,
      stderrIsTTY: false,
      stdinIsTTY: false,
      env: {},
      color: false,
      prompter: fakePrompter(),
      clock: { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) },
      configDir,
      cwd: process.cwd(),
      untilStopped: () => stopped,
    };
    const done = run(
      [
        'listen',
        '--port',
        '0',
        '--secret',
        secret,
        '--json',
        '--jq',
        '"\\(.event_id) \\(.body.orders[0].id)"',
      ],
      io,
    );
    const target = await url;
    const body = JSON.stringify({ brand_id: 1, branch_id: 1, orders: [{ id: 77 }] });
    const res = await fetch(target, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-partner-signature': sign(secret, body),
        'x-partner-event-id': 'evt_stream_1',
        'x-partner-event-type': 'service.order.created.v2',
        'x-partner-delivery-attempt': '1',
      },
      body,
    });
    expect(res.status).toBe(200);
    // The line is there while listen still runs: nothing waits for the end of the stream.
    await firstLine;
    expect(out).toBe('evt_stream_1 77\n');
    stop('SIGINT');
    expect(await done).toBe(0);
  });
});

describe('--template', () => {
  it('formats each value with Handlebars', async () => {
    const r = await cli([
      'branches',
      'list',
      '--template',
      '{{#each results}}{{id}}\\t{{title}}\\n{{/each}}',
    ]);
    expect(r.code).toBe(0);
    const branches = (await call(s, 'GET', '/v1/partner/branches')).body.data.results as {
      id: number;
      title: string;
    }[];
    expect(r.stdout).toBe(branches.map((b) => `${b.id}\t${b.title}\n`).join(''));
  });

  it('a template that does not parse is a usage error', async () => {
    const r = await cli(['branches', 'list', '--template', '{{#each results}}']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: --template: /);
  });
});

describe('one output shape per list, with or without --all', () => {
  for (const cmd of [
    ['branches', 'list'],
    ['orders', 'list'],
  ]) {
    it(`${cmd.join(' ')}: a page either way; --all holds every item`, async () => {
      const one = JSON.parse((await cli([...cmd, '--size', '1', '--json'])).stdout);
      const all = JSON.parse((await cli([...cmd, '--size', '1', '--all', '--json'])).stdout);
      expect(Object.keys(all).sort()).toEqual(Object.keys(one).sort());
      expect(Object.keys(one).sort()).toEqual(['page', 'results', 'size', 'total']);
      expect(one.results).toHaveLength(1);
      expect(one.total).toBeGreaterThan(1);
      expect(all.results).toHaveLength(one.total);
      expect(all).toMatchObject({ page: 1, size: one.total, total: one.total });
      expect(all.results[0]).toEqual(one.results[0]);
    });
  }

  it('--all on a terminal: one table and the page footer', async () => {
    const r = await cli(['branches', 'list', '--all', '--size', '1', '--no-color'], { tty: true });
    const total = (await call(s, 'GET', '/v1/partner/branches')).body.data.total;
    expect(r.stdout).toContain(`1–${total} of ${total}`);
    expect(r.stdout).not.toContain('for more');
  });
});

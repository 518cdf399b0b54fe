import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Io } from '../../src/cli/io.js';
import { run } from '../../src/cli/program.js';
import { JsonSplitter } from '../../src/cli/output/json-stream.js';
import { startWithProfile } from '../helpers/profile.js';
import { call, type TestServer } from '../helpers/server.js';
import { fakePrompter, runCli, tempDir } from './run-cli.js';

// `partner api` as gh's (issue 15 point 2), against the real server.

let s: TestServer;
let configDir: string;
let dir: string;

beforeAll(async () => {
  ({ s, configDir } = await startWithProfile());
  dir = tempDir('partner-api-');
});
afterAll(async () => {
  await s?.close();
});

const cli = (argv: string[], o: Parameters<typeof runCli>[1] = {}) =>
  runCli(['api', ...argv], { configDir, cwd: dir, ...o });
const values = (text: string) => {
  const sp = new JsonSplitter();
  return [...sp.push(text), ...sp.end()].map((t) => JSON.parse(t));
};
const requestLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('* '));

async function placedOrder(): Promise<number> {
  const orders = (await call(s, 'GET', '/v1/partner/orders?size=100')).body.data.results as {
    id: number;
    status: number;
  }[];
  const o = orders.find((x) => x.status === 1);
  if (o) return o.id;
  const brands = (await call(s, 'GET', '/v1/partner/brands')).body.data[0].brands;
  const branch = (await call(s, 'GET', '/v1/partner/branches')).body.data.results.find(
    (b: { brand_ids: number[] }) => b.brand_ids.includes(brands[0].id),
  );
  const r = await s.operator('POST', '/v1/operator/orders', {
    business_id: s.credential.businessId,
    brand_id: brands[0].id,
    branch_id: branch.id,
    items: 1,
  });
  return r.body.data.id;
}

describe('partner api fields', () => {
  it('-f sends strings, -F typed values: the server sees the difference', async () => {
    const id = await placedOrder();
    const asString = await cli([
      'PATCH',
      'orders/status',
      '-f',
      `id=${id}`,
      '-f',
      'status=ACCEPTED',
      '-f',
      'platform=enterprise',
    ]);
    expect(asString.code).toBe(1);
    expect(JSON.parse(asString.stdout).error.code).toBe('request_invalid');
    const typed = await cli([
      'PATCH',
      'orders/status',
      '-F',
      `id=${id}`,
      '-f',
      'status=ACCEPTED',
      '-f',
      'platform=enterprise',
    ]);
    expect(typed.code).toBe(0);
    expect(JSON.parse(typed.stdout).data).toMatchObject({ id, status: 2 });
  });

  it('GET puts the fields in the query string', async () => {
    const r = await cli(['GET', 'branches', '-f', 'size=1', '-F', 'page=2', '--verbose']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).data).toMatchObject({ page: 2, size: 1 });
    expect(requestLines(r.stderr)[0]).toMatch(
      /GET http:\/\/127\.0\.0\.1:\d+\/v1\/partner\/branches\?size=1&page=2 → 200/,
    );
  });
});

describe('partner api -H and -i', () => {
  it('-i prints the status line and headers, then the envelope', async () => {
    const r = await cli(['GET', 'brands', '-i']);
    expect(r.code).toBe(0);
    const [head, body] = [
      r.stdout.slice(0, r.stdout.indexOf('\n\n')),
      r.stdout.slice(r.stdout.indexOf('\n\n') + 2),
    ];
    const lines = head.split('\n');
    expect(lines[0]).toBe('HTTP/1.1 200 OK');
    const rid = lines.find((l) => l.startsWith('X-Request-Id: '))?.slice('X-Request-Id: '.length);
    expect(rid).toMatch(/^req_/);
    expect(lines).toContain('Content-Type: application/json; charset=utf-8');
    expect(lines.some((l) => /^Ratelimit-Limit: \d+$/.test(l))).toBe(true);
    expect(JSON.parse(body).request_id).toBe(rid);
  });

  it('-i on an error: the status line, headers and the error envelope; the exit code of the status', async () => {
    const r = await cli(['GET', 'branches/999999', '-i']);
    expect(r.code).toBe(4);
    expect(r.stdout).toMatch(/^HTTP\/1\.1 404 Not Found\n/);
    expect(JSON.parse(r.stdout.slice(r.stdout.indexOf('\n\n') + 2)).error.code).toBe('resource_not_found');
  });

  it('-H headers reach the server and win over the defaults', async () => {
    const bad = await cli(['GET', 'brands', '-H', 'Authorization: Basic bm90OnJpZ2h0']);
    expect(bad.code).toBe(3);
    expect(JSON.parse(bad.stdout).error.code).toBe('auth_invalid_credential');
    // The same Idempotency-Key twice: the second answer is the stored one, as the header says.
    const key = `api-test-${Date.now()}`;
    const first = await cli([
      'POST',
      'price/groups',
      '-f',
      'title=Header key',
      '-H',
      `Idempotency-Key: ${key}`,
      '-i',
    ]);
    const again = await cli([
      'POST',
      'price/groups',
      '-f',
      'title=Header key',
      '-H',
      `Idempotency-Key: ${key}`,
      '-i',
    ]);
    expect(first.code).toBe(0);
    expect(first.stdout).not.toMatch(/Idempotent-Replayed/);
    expect(again.stdout).toMatch(/^Idempotent-Replayed: true$/m);
    const id = (t: string) => JSON.parse(t.slice(t.indexOf('\n\n') + 2)).data.id;
    expect(id(again.stdout)).toBe(id(first.stdout));
  });

  it('a malformed -H is a usage error before any request', async () => {
    const r = await cli(['GET', 'brands', '-H', 'nocolon']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/-H expects 'Name: value', got "nocolon"/);
  });
});

describe('partner api --input', () => {
  it('sends the file byte for byte as the body', async () => {
    writeFileSync(join(dir, 'group.json'), '{"title": "From a file"}');
    const ok = await cli(['POST', 'price/groups', '--input', 'group.json']);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).data.title).toBe('From a file');
    // Not re-encoded: broken JSON reaches the server, which answers its own 400.
    writeFileSync(join(dir, 'broken.json'), '{"title": ');
    const broken = await cli(['POST', 'price/groups', '--input', 'broken.json']);
    expect(broken.code).toBe(1);
    expect(JSON.parse(broken.stdout).error.code).toBe('request_invalid');
  });

  it('- reads stdin; fields then go to the query string', async () => {
    // The server refuses unknown query keys on writes; business_id is accepted everywhere (and
    // overridden by the credential's business).
    const r = await cli(['POST', 'price/groups', '--input', '-', '-f', 'business_id=1', '--verbose'], {
      stdin: '{"title":"From stdin"}',
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).data.title).toBe('From stdin');
    expect(requestLines(r.stderr)[0]).toMatch(
      /POST http:\/\/127\.0\.0\.1:\d+\/v1\/partner\/price\/groups\?business_id=1 → /,
    );
  });

  it('a missing file, or --input with --data, is a usage error', async () => {
    const missing = await cli(['POST', 'price/groups', '--input', 'nope.json']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('error: --input: cannot read nope.json: no such file\n');
    const both = await cli(['POST', 'price/groups', '--input', '-', '--data', '{}'], { stdin: '{}' });
    expect(both.code).toBe(2);
  });
});

describe('partner api --paginate', () => {
  it('follows page/size until total, one envelope per page as it comes', async () => {
    const total = (await call(s, 'GET', '/v1/partner/branches')).body.data.total as number;
    expect(total).toBeGreaterThan(1);
    const r = await cli(['GET', 'branches', '-F', 'size=1', '--paginate', '--verbose']);
    expect(r.code).toBe(0);
    const pages = values(r.stdout);
    expect(pages).toHaveLength(total);
    expect(pages.map((p) => p.data.page)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(new Set(pages.map((p) => p.request_id)).size).toBe(total);
    expect(requestLines(r.stderr)).toHaveLength(total);
  });

  it('--jq applies to each page, so an expression over .data.results streams every item', async () => {
    const all = (await call(s, 'GET', '/v1/partner/branches?size=100')).body.data.results as { id: number }[];
    const r = await cli(['GET', 'branches', '-F', 'size=1', '--paginate', '--jq', '.data.results[].id']);
    expect(r.stdout).toBe(all.map((b) => `${b.id}\n`).join(''));
  });

  it('stops asking once nobody reads (the pager quit, or | head left)', async () => {
    let stderr = '';
    let pages = 0;
    // A stdout that goes away after the first page, as process.stdout does on EPIPE.
    const stdout = {
      destroyed: false,
      write(chunk: string) {
        if (chunk.includes('"request_id"')) pages++;
        stdout.destroyed = true;
        return true;
      },
    };
    const io: Io = {
      stdout,
      stderr: { write: (c: string) => (stderr += c) },
      stdin: Readable.from([]),
      stdoutIsTTY: false,
      stderrIsTTY: false,
      stdinIsTTY: false,
      env: {},
      color: false,
      prompter: fakePrompter(),
      clock: { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) },
      configDir,
      cwd: dir,
    };
    const code = await run(['api', 'GET', 'branches', '-F', 'size=1', '--paginate', '--verbose'], io);
    expect(code).toBe(0);
    expect(pages).toBe(1);
    expect(requestLines(stderr)).toHaveLength(1);
  });

  it('a response that is not a page ends after one request', async () => {
    const r = await cli(['GET', 'brands', '--paginate', '--verbose']);
    expect(r.code).toBe(0);
    expect(values(r.stdout)).toHaveLength(1);
    expect(requestLines(r.stderr)).toHaveLength(1);
  });

  it('--paginate on a write, or --json FIELDS on api, is a usage error', async () => {
    expect((await cli(['POST', 'price/groups', '--paginate'])).code).toBe(2);
    const j = await cli(['GET', 'brands', '--json', 'id']);
    expect(j.code).toBe(2);
    expect(j.stderr).toMatch(/use --jq/);
  });
});

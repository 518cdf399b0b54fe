import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { BodyBudget } from './body-reader.js';
import { decoding } from './decoding.js';
import { stageApp } from './harness.js';

// The decoding stage in-process: a route that echoes the body it was given, behind it.

const LIMIT = 64 * 1024;
const app = stageApp([decoding({ limit: LIMIT, budget: new BodyBudget(4 * LIMIT) })]);
app.post('/echo', async (req) => ({ got: req.body }));
afterAll(() => app.close());

const post = (payload: string | Buffer, headers: Record<string, string>) =>
  app.inject({
    method: 'POST',
    url: '/echo',
    payload,
    headers: { 'content-type': 'application/json', ...headers },
  });

describe('decoding', () => {
  it('gzip, deflate and br bodies are decoded before parsing; identity as is', async () => {
    const json = JSON.stringify({ title: 'Tea', n: 1 });
    for (const [enc, bytes] of [
      ['gzip', gzipSync(json)],
      ['deflate', deflateSync(json)],
      ['br', brotliCompressSync(json)],
      ['identity', Buffer.from(json)],
    ] as const) {
      const r = await post(bytes, { 'content-encoding': enc });
      expect(r.statusCode, enc).toBe(200);
      expect(r.json()).toEqual({ got: { title: 'Tea', n: 1 } });
    }
  });

  it('an encoding it does not know: 415 naming it', async () => {
    const r = await post('{}', { 'content-encoding': 'zstd' });
    expect(r.statusCode).toBe(415);
    expect(r.json().error).toMatchObject({ code: 'request_unsupported_media_type' });
    expect(r.json().error.message).toContain('"zstd"');
  });

  it('the limit counts decoded bytes: a small bomb is refused 413', async () => {
    const bomb = gzipSync(`{"a":"${'x'.repeat(LIMIT * 4)}"}`);
    expect(bomb.length).toBeLessThan(LIMIT);
    const r = await post(bomb, { 'content-encoding': 'gzip' });
    expect(r.statusCode).toBe(413);
    expect(r.json().error.code).toBe('request_too_large');
  });

  it('bytes that are not the encoding claimed: 400 naming it', async () => {
    const r = await post('not gzip at all', { 'content-encoding': 'gzip' });
    expect(r.statusCode).toBe(400);
    expect(r.json().error.message).toContain('gzip');
  });

  it('strict JSON: a prototype key, a syntax error (saying why) and an empty body are 400', async () => {
    const proto = await post('{"a":1,"__proto__":{"admin":true}}', {});
    expect(proto.statusCode).toBe(400);
    expect(proto.json().error.details).toEqual([
      { path: ['body'], message: expect.stringMatching(/^malformed JSON: /) },
    ]);
    const ctor = await post('{"constructor":{"prototype":{"admin":true}}}', {});
    expect(ctor.statusCode).toBe(400);
    const broken = await post('{"a":', {});
    expect(broken.statusCode).toBe(400);
    expect(broken.json().error.message).toMatch(/^malformed JSON body: ./);
    const empty = await post('', {});
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error.message).toContain('empty');
  });

  it('a body nested past 64 levels is 400 before it is parsed; 64 levels are read', async () => {
    const nest = (n: number) => `${'{"a":'.repeat(n - 1)}{}${'}'.repeat(n - 1)}`;
    const deep = await post(nest(65), {});
    expect(deep.statusCode).toBe(400);
    expect(deep.json().error).toMatchObject({
      code: 'request_invalid',
      message: 'body nests deeper than 64 levels',
    });
    const ok = await post(nest(64), {});
    expect(ok.statusCode).toBe(200);
  });

  it('a body without a Content-Type is 415; no body and no type is no body', async () => {
    const untyped = await app.inject({ method: 'POST', url: '/echo', payload: '{}' });
    expect(untyped.statusCode).toBe(415);
    const none = await app.inject({ method: 'POST', url: '/echo' });
    expect(none.statusCode).toBe(200);
    expect(none.json()).toEqual({});
  });

  it('only JSON: text/plain answers 415; invalid UTF-8 is refused, not replaced', async () => {
    const text = await post('hello', { 'content-type': 'text/plain' });
    expect(text.statusCode).toBe(415);
    const bad = await post(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]), {});
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('request_invalid');
  });
});

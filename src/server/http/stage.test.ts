import { afterAll, describe, expect, it } from 'vitest';
import { ApiError } from '../errors.js';
import { stageApp } from './harness.js';
import { inOrder, type RequestStage } from './stage.js';

// How a route's steps are composed: in the order listed, the skipped ones left out, the first
// refusal ending the request (later steps and the handler never run).

const ran: string[] = [];
const step =
  (name: string, refuse = false): RequestStage =>
  (req) => {
    ran.push(name);
    if (refuse && req.headers['x-refuse'] === name)
      throw new ApiError('auth_forbidden', `refused by ${name}`);
  };
const later =
  (name: string): RequestStage =>
  async () => {
    await new Promise((r) => setImmediate(r));
    ran.push(name);
  };

const app = stageApp();
app.get('/t', { onRequest: inOrder([step('a', true), undefined, later('b'), step('c', true)]) }, async () => {
  ran.push('handler');
  return 'ok';
});
afterAll(() => app.close());

describe('inOrder', () => {
  it('runs the steps in order, an asynchronous one finished before the next, then the handler', async () => {
    ran.length = 0;
    expect((await app.inject({ url: '/t' })).body).toBe('ok');
    expect(ran).toEqual(['a', 'b', 'c', 'handler']);
  });

  it('a refusal answers in the envelope; nothing after it runs', async () => {
    ran.length = 0;
    const r = await app.inject({ url: '/t', headers: { 'x-refuse': 'a' } });
    expect(r.statusCode).toBe(403);
    expect(r.json().error.message).toBe('refused by a');
    expect(ran).toEqual(['a']);
  });

  it('no step at all: no hook', () => {
    expect(inOrder([undefined, undefined])).toBeUndefined();
  });
});

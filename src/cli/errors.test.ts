import { describe, expect, it } from 'vitest';
import { ApiError, ClientConfigError, NetworkError } from '../client/errors.js';
import { Exit, exitCodeFor, UsageError } from './errors.js';
import { reportError } from './output/errors.js';

const api = (status: number, code = 'x') => new ApiError({ code, message: 'm', status, request_id: 'req_1' });

describe('exit codes (docs/cli.md)', () => {
  it.each([
    [api(401), 3],
    [api(403), 3],
    [api(404), 4],
    [api(409), 5],
    [api(429), 6],
    [api(500), 7],
    [api(502), 7],
    [api(400), 1],
    [new NetworkError('down', 'ECONNREFUSED'), 7],
    [new UsageError('bad'), 2],
    [new ClientConfigError('insecure', 'insecure_transport'), 2],
    [new Exit(5), 5],
    [Object.assign(new Error('User force closed the prompt with SIGINT'), { name: 'ExitPromptError' }), 1],
    [new Error('boom'), 1],
  ])('%s → %i', (err, code) => {
    expect(exitCodeFor(err)).toBe(code);
  });
});

describe('reportError', () => {
  it('shows code, message and request_id; details only when verbose', () => {
    let out = '';
    const w = { write: (s: string) => (out += s) };
    const err = new ApiError({
      code: 'request_invalid',
      message: 'bad body',
      status: 400,
      request_id: 'req_9',
      details: [{ path: 'title' }],
    });
    expect(reportError(err, w, { verbose: false, color: false })).toBe(1);
    expect(out).toContain('request_invalid: bad body');
    expect(out).toContain('request_id: req_9');
    expect(out).not.toContain('"path"');
    out = '';
    reportError(err, w, { verbose: true, color: false });
    expect(out).toContain('"path": "title"');
  });
  it('the rate-limit hint tells what really happened (retried or not, and why)', () => {
    const hint = (init: Partial<ConstructorParameters<typeof ApiError>[0]>) => {
      let out = '';
      const err = new ApiError({ code: 'rate_limit_exceeded', message: 'm', status: 429, ...init });
      expect(reportError(err, { write: (s: string) => (out += s) }, { verbose: false, color: false })).toBe(
        6,
      );
      return out.split('\n').find((l) => l.startsWith('hint:')) ?? '';
    };
    const notRetried = hint({ attempts: 1, waitedMs: 0, retryAfterMs: 60_000 });
    expect(notRetried).toContain('not retried');
    expect(notRetried).toContain('wait 1 min');
    expect(notRetried).not.toMatch(/already retried/);
    const retried = hint({ attempts: 4, waitedMs: 45_000, retryAfterMs: 20_000 });
    expect(retried).toContain('3 retries');
    expect(retried).toContain('45 s');
    expect(hint({ attempts: 2, waitedMs: 20_000 })).toContain('1 retry ');
  });

  it('shows no stack trace for usage errors, and no colour codes when colour is off', () => {
    let out = '';
    reportError(
      new UsageError('missing required flag --title'),
      { write: (s: string) => (out += s) },
      { verbose: true, color: false },
    );
    expect(out).toBe('error: missing required flag --title\n');
  });
});

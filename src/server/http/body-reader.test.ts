import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.js';
import { BodyBudget, readBodyText, SMALL_BODY } from './body-reader.js';

const chunks = (...parts: (string | Buffer)[]) =>
  Readable.from(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: unknown) => (e instanceof ApiError ? e.code : String(e)),
  );

describe('readBodyText', () => {
  it('decodes UTF-8 strictly, a character split across chunks included', async () => {
    const euro = Buffer.from('{"p":"€"}');
    const at = euro.indexOf(0xe2) + 1; // inside the three bytes of €
    expect(await readBodyText(chunks(euro.subarray(0, at), euro.subarray(at)), { limit: 100 })).toBe(
      '{"p":"€"}',
    );
    expect(
      await codeOf(readBodyText(chunks('{"t":"', Buffer.from([0xff, 0xfe]), '"}'), { limit: 100 })),
    ).toBe('request_invalid');
    // A truncated sequence at the very end is invalid too.
    expect(await codeOf(readBodyText(chunks('{"t":"', Buffer.from([0xe2, 0x82])), { limit: 100 }))).toBe(
      'request_invalid',
    );
  });

  it('refuses a body over the limit: from its declared length before reading, else at the first byte past it', async () => {
    const never = new PassThrough(); // nothing is ever written: a declared length decides alone
    expect(await codeOf(readBodyText(never, { limit: 10, declared: 11 }))).toBe('request_too_large');
    expect(await codeOf(readBodyText(chunks('12345', '678901'), { limit: 10 }))).toBe('request_too_large');
    expect(await readBodyText(chunks('12345', '67890'), { limit: 10 })).toBe('1234567890');
  });

  it('a body cut off by the client rejects and gives its reservation back', async () => {
    const budget = new BodyBudget(SMALL_BODY * 4);
    const s = new PassThrough();
    const p = codeOf(readBodyText(s, { limit: SMALL_BODY * 4, declared: SMALL_BODY * 2, budget }));
    s.write('{"a":');
    s.destroy();
    expect(await p).toBe('request_invalid');
    // All of the budget is free again: a body of the whole budget is granted at once.
    expect(budget.take(SMALL_BODY * 4)).toBeUndefined();
  });
});

describe('BodyBudget: bodies read at once are bounded', () => {
  it('a large body waits until an earlier one is read; small bodies never wait', async () => {
    const budget = new BodyBudget(SMALL_BODY * 3);
    const first = new PassThrough();
    const second = new PassThrough();
    const opts = (declared: number) => ({ limit: SMALL_BODY * 4, declared, budget });
    const a = readBodyText(first, opts(SMALL_BODY * 2));
    const b = readBodyText(second, opts(SMALL_BODY * 2));
    let bDone = false;
    void b.then(() => {
      bDone = true;
    });
    // The second is not read while the first holds its reservation.
    second.end('{"b":1}');
    expect(await readBodyText(chunks('{"small":1}'), opts(11))).toBe('{"small":1}');
    await new Promise((r) => setImmediate(r));
    expect(bDone).toBe(false);
    expect(budget.stats.waited).toBe(1);
    first.end('{"a":1}');
    expect(await a).toBe('{"a":1}');
    expect(await b).toBe('{"b":1}');
    expect(budget.stats.maxUsed).toBe(SMALL_BODY * 2);
  });

  it('a body larger than the whole budget still goes through, alone', async () => {
    const budget = new BodyBudget(SMALL_BODY * 2);
    const big = 'x'.repeat(SMALL_BODY * 3);
    expect(await readBodyText(chunks(big), { limit: SMALL_BODY * 4, budget })).toBe(big);
    expect(budget.stats.maxUsed).toBe(SMALL_BODY * 4); // no declared length: the limit is reserved
  });
});

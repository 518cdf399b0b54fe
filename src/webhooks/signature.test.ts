import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sign, verify } from './signature.js';

// Vectors computed outside the project (test/fixtures/README.md says where they come from).
const fixture = JSON.parse(
  readFileSync(new URL('../../test/fixtures/webhook-vectors.json', import.meta.url), 'utf8'),
) as { vectors: { name: string; secret: string; body_base64: string; signature: string }[] };

describe('webhook signatures', () => {
  for (const v of fixture.vectors) {
    it(`matches the vector ${v.name}`, () => {
      const body = Buffer.from(v.body_base64, 'base64');
      expect(sign(v.secret, body)).toBe(v.signature);
      expect(verify(v.secret, body, v.signature)).toBe(true);
    });
  }

  it('fails a re-serialised body with the compact signature', () => {
    const compact = fixture.vectors.find((v) => v.name === 'status-updated-compact')!;
    const pretty = Buffer.from(
      JSON.stringify(JSON.parse(Buffer.from(compact.body_base64, 'base64').toString()), null, 2),
    );
    expect(verify(compact.secret, pretty, compact.signature)).toBe(false);
  });

  it('rejects a missing, short or non-hex signature, and the wrong secret', () => {
    const body = '{"a":1}';
    const good = sign('k', body);
    expect(verify('k', body, undefined)).toBe(false);
    expect(verify('k', body, good.slice(0, 10))).toBe(false);
    expect(verify('k', body, 'z'.repeat(64))).toBe(false);
    expect(verify('other', body, good)).toBe(false);
    expect(verify('k', body, good.toUpperCase())).toBe(true);
  });
});

import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../../src/contract/errors.js';

it('docs/errors.md mirrors the error catalogue exactly (code and status)', () => {
  const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  const rows = [...doc.matchAll(/^\| `([A-Za-z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1], Number(m[2])]);
  const catalogue = Object.entries(ERROR_CATALOGUE).map(([code, v]) => [code, v.status]);
  expect(rows).toEqual(catalogue);
});

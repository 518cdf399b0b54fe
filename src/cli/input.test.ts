import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { coerceArg, coerceFlag, readJsonArg } from './input.js';
import type { Io } from './io.js';

const dirs: string[] = [];
const tmp = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const io = (over: Partial<Io> = {}): Io =>
  ({ cwd: process.cwd(), stdinIsTTY: false, stdin: Readable.from([]), ...over }) as Io;

describe('coerceFlag', () => {
  it('types values by the field', () => {
    expect(coerceFlag({ name: 'n', type: 'integer', required: false }, '12', '--n')).toBe(12);
    expect(coerceFlag({ name: 'b', type: 'boolean', required: false }, true, '--b')).toBe(true);
    expect(coerceFlag({ name: 'o', type: 'object', required: false }, '{"a":1}', '--o')).toEqual({ a: 1 });
    expect(
      coerceFlag({ name: 'l', type: 'array', items: 'integer', required: false }, ['1,2', '3'], '--l'),
    ).toEqual([1, 2, 3]);
    expect(
      coerceFlag({ name: 's', type: 'string', nullable: true, required: false }, 'null', '--s'),
    ).toBeNull();
    expect(coerceFlag({ name: 'a', type: 'any', required: false }, 'READY', '--a')).toBe('READY');
  });
  it('names the flag on bad input', () => {
    expect(() => coerceFlag({ name: 'n', type: 'integer', required: false }, '1.5', '--size')).toThrow(
      /--size expects an integer/,
    );
    expect(() => coerceFlag({ name: 'o', type: 'object', required: false }, '{', '--times')).toThrow(
      /--times expects JSON/,
    );
    expect(() =>
      coerceFlag({ name: 'e', type: 'string', enum: ['a', 'b'], required: false }, 'c', '--e'),
    ).toThrow(/--e must be one of a, b/);
  });
});

describe('coerceArg', () => {
  it('requires positive integers for integer ids', () => {
    expect(coerceArg({ name: 'id', type: 'integer', required: true }, '34', 'id')).toBe(34);
    expect(() => coerceArg({ name: 'id', type: 'integer', required: true }, 'abc', 'id')).toThrow(
      /ID must be a positive integer/,
    );
    expect(coerceArg({ name: 'key', type: 'string', required: true }, 'pk_1', 'key')).toBe('pk_1');
  });
});

describe('readJsonArg', () => {
  it('reads inline JSON, @file and stdin', async () => {
    const dir = tmp('partner-input-');
    writeFileSync(join(dir, 'b.json'), '{"title":"x"}');
    expect(await readJsonArg('{"a":1}', '--data', io())).toEqual({ a: 1 });
    expect(await readJsonArg('@b.json', '--data', io({ cwd: dir }))).toEqual({ title: 'x' });
    expect(await readJsonArg('-', '--data', io({ stdin: Readable.from([Buffer.from('[1]')]) }))).toEqual([1]);
  });
  it('names the flag or file, never a stack', async () => {
    await expect(readJsonArg('{bad', '--data', io())).rejects.toThrow(/^--data is not valid JSON/);
    await expect(readJsonArg('@missing.json', '--data', io())).rejects.toThrow(
      /--data: cannot read missing.json: no such file/,
    );
    await expect(readJsonArg('-', '--data', io({ stdinIsTTY: true }))).rejects.toThrow(/stdin is a terminal/);
  });
});

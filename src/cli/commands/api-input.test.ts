import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import type { Io } from '../io.js';
import { headerName, parseFields, parseHeaders } from './api-input.js';

const dir = mkdtempSync(join(tmpdir(), 'partner-api-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const io = (over: Partial<Io> = {}): Io =>
  ({ cwd: dir, stdinIsTTY: false, stdin: Readable.from([]), ...over }) as Io;

describe('partner api -f / -F', () => {
  it('-f keeps strings; -F types numbers, booleans and null', async () => {
    expect(await parseFields(['page=2', 'busy=true', 'title=Kopi'], [], io())).toEqual({
      page: '2',
      busy: 'true',
      title: 'Kopi',
    });
    expect(
      await parseFields([], ['page=2', 'busy=true', 'x=null', 'price=12.50', 'title=Kopi'], io()),
    ).toEqual({
      page: 2,
      busy: true,
      x: null,
      price: 12.5,
      title: 'Kopi',
    });
  });

  it('-F @file reads a file, @- reads stdin', async () => {
    writeFileSync(join(dir, 'note.txt'), 'from a file\n');
    expect(await parseFields([], ['comment=@note.txt'], io())).toEqual({ comment: 'from a file\n' });
    expect(
      await parseFields([], ['comment=@-'], io({ stdin: Readable.from([Buffer.from('piped\n')]) })),
    ).toEqual({
      comment: 'piped',
    });
    await expect(parseFields([], ['comment=@missing.txt'], io())).rejects.toThrow(
      /-F comment: cannot read missing.txt: no such file/,
    );
  });

  it('nested keys: lists, objects, lists of objects (gh syntax), empty lists', async () => {
    expect(
      await parseFields(
        ['tags[]=a', 'tags[]=b', 'filter[status]=READY'],
        [
          'items[][partner_item_id]=SKU-1',
          'items[][isAvailable]=false',
          'items[][partner_item_id]=SKU-2',
          'items[][isAvailable]=true',
          'ids[]=1',
        ],
        io(),
      ),
    ).toEqual({
      tags: ['a', 'b'],
      filter: { status: 'READY' },
      items: [
        { partner_item_id: 'SKU-1', isAvailable: false },
        { partner_item_id: 'SKU-2', isAvailable: true },
      ],
      ids: [1],
    });
    expect(await parseFields(['branch_ids[]'], [], io())).toEqual({ branch_ids: [] });
  });

  it('malformed fields are usage errors naming the flag', async () => {
    await expect(parseFields(['oops'], [], io())).rejects.toThrow('-f expects key=value, got "oops"');
    await expect(parseFields([], ['=1'], io())).rejects.toThrow('-F expects key=value, got "=1"');
    await expect(parseFields(['a=1', 'a[x]=2'], [], io())).rejects.toThrow(/-f a\[x\]: a is already given/);
    await expect(parseFields(['a]b=1'], [], io())).rejects.toThrow(/-f a\]b: a key is a name/);
  });
});

describe('partner api -H', () => {
  it('parses Name: value, lower-cases the name, last one wins', () => {
    expect(parseHeaders(['Accept-Language: id', 'X-Trace:  abc ', 'accept-language: en'])).toEqual({
      'accept-language': 'en',
      'x-trace': 'abc',
    });
    expect(() => parseHeaders(['no colon'])).toThrow(`-H expects 'Name: value', got "no colon"`);
    expect(() => parseHeaders(['Bad Name: x'])).toThrow(/-H expects/);
  });

  it('prints names as gh does', () => {
    expect(headerName('x-request-id')).toBe('X-Request-Id');
    expect(headerName('ratelimit-limit')).toBe('Ratelimit-Limit');
  });
});

import { describe, expect, it } from 'vitest';
import { JsonSplitter, JsonStreamFilter } from './json-stream.js';

describe('JsonSplitter', () => {
  it('cuts a pretty document written in pieces only once it is whole', () => {
    const doc = JSON.stringify({ a: [1, { b: '}]"\\' }], c: 'x' }, null, 2);
    const s = new JsonSplitter();
    const cut = [doc.slice(0, 7), doc.slice(7, 20), doc.slice(20)];
    expect(s.push(cut[0]!)).toEqual([]);
    expect(s.push(cut[1]!)).toEqual([]);
    expect(s.push(`${cut[2]}\n`)).toEqual([doc]);
    expect(JSON.parse(doc)).toEqual({ a: [1, { b: '}]"\\' }], c: 'x' });
    expect(s.end()).toEqual([]);
    expect(s.rest()).toBe('');
  });

  it('cuts one value per line (NDJSON) and several values in one write', () => {
    const s = new JsonSplitter();
    expect(s.push('{"n":1}\n{"n":2}\n[3]')).toEqual(['{"n":1}', '{"n":2}', '[3]']);
    expect(s.push('\n"a string with } inside"\n')).toEqual(['"a string with } inside"']);
  });

  it('a bare scalar ends at whitespace, or at the end of the stream', () => {
    const s = new JsonSplitter();
    expect(s.push('42 true')).toEqual(['42']);
    expect(s.push('')).toEqual([]);
    expect(s.end()).toEqual(['true']);
  });

  it('leaves an unfinished value as the rest', () => {
    const s = new JsonSplitter();
    expect(s.push('{"a": [1, 2')).toEqual([]);
    expect(s.end()).toEqual([]);
    expect(s.rest()).toBe('{"a": [1, 2');
  });
});

describe('JsonStreamFilter', () => {
  it('writes each value as soon as it is whole, transformed, in order', async () => {
    const written: string[] = [];
    const f = new JsonStreamFilter(
      { write: (s: string) => written.push(s) },
      async (v, compact) => `${compact ? 'line' : 'doc'}:${JSON.stringify(v)}\n`,
      '--jq',
    );
    f.write('{"n":1}\n');
    // Values are processed before finish(): a stream (listen --json) is not held back.
    await new Promise((r) => setTimeout(r, 0));
    expect(written).toEqual(['line:{"n":1}\n']);
    f.write('{\n  "n": 2\n}\n');
    await f.finish();
    expect(written).toEqual(['line:{"n":1}\n', 'doc:{"n":2}\n']);
  });

  it('text that is not JSON is a usage error naming the flag', async () => {
    const f = new JsonStreamFilter({ write: () => true }, async () => '', '--jq');
    f.write('# partner completion for bash\n');
    await expect(f.finish()).rejects.toMatchObject({
      name: 'UsageError',
      message: '--jq needs JSON output, and this command printed other text',
    });
  });

  it('the first failing transform is thrown by finish, and nothing after it is written', async () => {
    const written: string[] = [];
    const f = new JsonStreamFilter(
      { write: (s: string) => written.push(s) },
      async (v) => {
        if (v === 2) throw new Error('boom');
        return `${v}\n`;
      },
      '--jq',
    );
    f.write('1\n2\n3\n');
    await expect(f.finish()).rejects.toThrow('boom');
    expect(written).toEqual(['1\n']);
  });
});

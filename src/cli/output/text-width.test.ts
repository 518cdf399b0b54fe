import { describe, expect, it } from 'vitest';
import { displayWidth, stripAnsi, fitColumns, fitText, truncate } from './display-width.js';
import { wrapForTerminal, wrapText } from './text-width.js';

describe('displayWidth', () => {
  it('counts terminal cells, not UTF-16 units', () => {
    expect(displayWidth('Nasi goreng')).toBe(11);
    expect(displayWidth('Nguyễn Văn An')).toBe(13);
    // "e" + combining acute accent: one cell.
    expect(displayWidth('Cafe\u0301')).toBe(4);
    expect(displayWidth('注文')).toBe(4);
    expect(displayWidth('🍜 ok')).toBe(5);
    expect(displayWidth('\u001b[31mred\u001b[39m')).toBe(3);
  });
});

describe('truncate and fitText', () => {
  it('cuts with an ellipsis inside the width and pads to it', () => {
    expect(truncate('Pimchanok Rattana', 10)).toBe('Pimchanok…');
    expect(truncate('short', 10)).toBe('short');
    expect(displayWidth(truncate('注文注文注文', 5))).toBeLessThanOrEqual(5);
    expect(fitText('ab', 4)).toBe('ab  ');
    expect(fitText('abcdef', 4)).toBe('abc…');
    expect(truncate('abc', 0)).toBe('');
  });
});

describe('fitColumns', () => {
  it('keeps what fits', () => {
    expect(
      fitColumns(
        [
          { want: 10, min: 10 },
          { want: 20, min: 8 },
        ],
        40,
      ),
    ).toEqual([10, 20]);
  });

  it('squeezes the squeezable column before dropping anything', () => {
    expect(
      fitColumns(
        [
          { want: 10, min: 10 },
          { want: 20, min: 8, dropOrder: 1 },
        ],
        25,
      ),
    ).toEqual([10, 15]);
  });

  it('drops by dropOrder once squeezing is not enough, then un-squeezes the rest', () => {
    const w = fitColumns(
      [
        { want: 10, min: 10 },
        { want: 20, min: 8, dropOrder: 2 },
        { want: 9, min: 9, dropOrder: 1 },
      ],
      25,
    );
    expect(w).toEqual([10, 15, 0]);
    expect(w.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(25);
  });

  it('never drops a column without a dropOrder', () => {
    expect(fitColumns([{ want: 30, min: 30 }], 20)).toEqual([30]);
  });
});

describe('wrapText', () => {
  it('breaks at spaces within the width', () => {
    expect(wrapText('Mon–Thu, Sun 07:00–22:00, Fri–Sat 07:00–23:00', 20)).toEqual([
      'Mon–Thu, Sun',
      '07:00–22:00, Fri–Sat',
      '07:00–23:00',
    ]);
    expect(wrapText('short', 20)).toEqual(['short']);
  });
  it('breaks a list only between its items', () => {
    expect(wrapText('1 PLACED · 2 ACCEPTED · 7 DRIVER ASSIGNED', 24, ' · ')).toEqual([
      '1 PLACED · 2 ACCEPTED ·',
      '7 DRIVER ASSIGNED',
    ]);
  });
  it('never cuts a URL or a token: it gets a line of its own', () => {
    const url = 'http://127.0.0.1:8787/inspect?token=abcdefghijklmnopqrstuvwxyz0123456789';
    expect(wrapText(`Open ${url} in a browser`, 30)).toEqual(['Open', url, 'in a browser']);
  });
  it('counts colour codes as nothing and wide characters as two cells', () => {
    const red = (s: string) => `\u001b[31m${s}\u001b[39m`;
    const lines = wrapText(`${red('alpha')} beta ${red('gamma')} delta`, 12);
    expect(lines.map(stripAnsi)).toEqual(['alpha beta', 'gamma delta']);
    expect(lines.every((l) => displayWidth(l) <= 12)).toBe(true);
    expect(wrapText('寿司 天ぷら ラーメン', 11)).toEqual(['寿司 天ぷら', 'ラーメン']);
  });
});

describe('wrapForTerminal', () => {
  it('wraps each line at word boundaries, keeping its indent', () => {
    expect(wrapForTerminal('Title\n  one two three four five six', 20)).toBe(
      'Title\n  one two three four\n  five six',
    );
  });
  it('leaves lines whole when there is no terminal width (piped output)', () => {
    const long = 'word '.repeat(30).trim();
    expect(wrapForTerminal(long, undefined)).toBe(long);
  });
});

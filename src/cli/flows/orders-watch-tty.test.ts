import { describe, expect, it } from 'vitest';
import type { Io } from '../io.js';
import { displayWidth, stripAnsi } from '../output/display-width.js';
import { LiveView } from './orders-watch-tty.js';
import type { WatchOrder } from './orders-watch-cursor.js';

// The live view's frame at many terminal sizes: never wider than the terminal, never taller,
// and the title, the header, the selected row and the key hints always in it.

const now = Date.parse('2025-01-01T12:00:00Z');
const names = ['PLACED', 'ACCEPTED', 'CANCELLED', 'READY', 'DELIVERED', 'SCHEDULED', 'DRIVER ASSIGNED'];

function order(i: number): WatchOrder {
  const at = new Date(now - i * 60_000).toISOString();
  return {
    id: 1000 + i,
    status: (i % names.length) + 1,
    created_at: at,
    updated_at: at,
    brand_id: 1,
    branch_id: 12,
    total: `${100000 + i * 1500}.00`,
    currency: 'IDR',
    customer: { name: i % 3 === 0 ? 'Nguyễn Văn An' : 'Pimchanok Rattana-Srisuk' },
  };
}

function frame(cols: number, rows: number, orders: number, select?: number): string[] {
  let out = '';
  const stdout = { write: (s: string) => (out += s), columns: cols, rows };
  const view = new LiveView({
    io: { stdout } as unknown as Io,
    color: true,
    title: 'orders watch · profile production-eu · branch all · status all · every 2s',
    interactive: true,
    statusName: (id) => names[id - 1] ?? String(id),
  });
  for (let i = 0; i < orders; i++) view.upsert(order(i));
  for (let i = 0; i < 6; i++)
    view.note(`12:0${i}:00 new #${1000 + i} PLACED · brand 1 · branch 12 · 100000.00 IDR`);
  view.lastPoll = 'poll 12 at 12:00:00';
  view.start();
  view.render(now, () => true);
  for (let i = 0; i < (select ?? 0); i++) view.move(1, () => true);
  out = '';
  view.render(now, () => true);
  // Frame: cursor home, lines separated by CRLF, each starting with "clear line".
  const body = out.slice(out.indexOf('\u001b[H') + 3).replace(/\u001b\[J$/, '');
  return body.split('\r\n').map((l) => stripAnsi(l.replace(/\u001b\[2K/g, '')));
}

describe('the live view at any size', () => {
  for (const [cols, rows] of [
    [80, 24],
    [60, 18],
    [40, 12],
    [120, 40],
    [200, 50],
  ] as const) {
    it(`${cols}×${rows}: fits, keeps title, header, selection and keys`, () => {
      const lines = frame(cols, rows, 30, 25);
      expect(lines.length).toBeLessThanOrEqual(rows);
      for (const l of lines) expect(displayWidth(l), l).toBeLessThan(cols);
      expect(lines[0]).toMatch(/^orders watch/);
      expect(lines[2]).toMatch(/^ {2}ID\s+STATUS/);
      expect(lines.some((l) => l.startsWith('> #1025'))).toBe(true);
      expect(lines.at(-1)).toMatch(/q quit/);
    });
  }

  it('shows every column when there is room, and drops CREATED first when there is not', () => {
    expect(frame(120, 40, 5)[2]).toMatch(
      /ID\s+STATUS\s+BRAND\s+BRANCH\s+TOTAL\s+CUSTOMER\s+CREATED\s+UPDATED/,
    );
    const narrow = frame(60, 24, 5)[2]!;
    expect(narrow).not.toContain('CREATED');
    expect(narrow).toContain('UPDATED');
  });
});

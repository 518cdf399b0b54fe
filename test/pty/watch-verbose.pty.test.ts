import { describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { spawnPartner, localProfile, onDemoServer } from './harness.js';

// `orders watch --verbose` at a real terminal: the request lines go into the frame's recent lines
// instead of being written over the live screen (which tore it: lines at the cursor, the title
// scrolled away).

let s: TestServer;
onDemoServer((server) => {
  s = server;
});

describe('orders watch --verbose at a terminal', { timeout: 120_000 }, () => {
  it('shows the request lines inside the frame; the frame stays whole', async () => {
    const configDir = localProfile(s);
    const t = spawnPartner(['orders', 'watch', '--verbose', '--interval', '300ms', '--duration', '60s'], {
      configDir,
    });
    // Several polls: each one's request line shown, the frame redrawn around them.
    const lineOf = /^ {2}\* 200 in \d+ ms {2}GET \/v1\/partner\/orders/;
    await t.waitFor((screen) => screen.filter((l) => lineOf.test(l)).length >= 2, 30_000);
    const screen = t.screen();
    expect(screen[0], screen.join('\n')).toMatch(/^orders watch/);
    expect(screen.some((l) => /\bID\b.*\bSTATUS\b/.test(l))).toBe(true);
    expect(screen.some((l) => /q quit/.test(l))).toBe(true);
    // No request line outside the frame's recent lines (none flush left, where stderr put them).
    expect(screen.filter((l) => l.startsWith('* '))).toEqual([]);
    expect(t.wrappedRows()).toEqual([]);
    t.write('q');
    expect(await t.exit(30_000)).toBe(0);
  });
});

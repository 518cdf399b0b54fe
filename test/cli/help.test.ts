import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { Io } from '../../src/cli/io.js';
import { MANIFEST } from '../../src/cli/manifest/data.js';
import { buildProgram, run } from '../../src/cli/program.js';
import { fakePrompter, tempDir } from './run-cli.js';

// `--help` as a person reads it: summaries that are whole phrases, group descriptions that say
// something true, and text that wraps cleanly at 80 columns (or at the terminal's width).

function io(out: { s: string }, o: { tty?: boolean; columns?: number } = {}): Io {
  return {
    stdout: {
      write: (x: string) => (out.s += x),
      ...(o.columns ? { columns: o.columns } : {}),
    } as Io['stdout'],
    stderr: { write: () => true },
    stdin: process.stdin,
    stdoutIsTTY: o.tty ?? false,
    stderrIsTTY: false,
    stdinIsTTY: false,
    env: {},
    color: false,
    prompter: fakePrompter(),
    clock: { now: Date.now, sleep: async () => undefined },
    configDir: tempDir(),
    cwd: process.cwd(),
  };
}

function everyCommand(): { path: string; cmd: Command }[] {
  const out = { s: '' };
  const root = buildProgram(io(out), MANIFEST, { code: 0 });
  const all: { path: string; cmd: Command }[] = [];
  const walk = (c: Command, path: string[]) => {
    for (const sub of c.commands) {
      const p = [...path, sub.name()];
      all.push({ path: p.join(' '), cmd: sub });
      walk(sub, p);
    }
  };
  walk(root, []);
  return all;
}

async function help(argv: string[], o: { tty?: boolean; columns?: number } = {}): Promise<string> {
  const out = { s: '' };
  const code = await run([...argv, '--help'], io(out, o));
  expect(code).toBe(0);
  return out.s;
}

const balanced = (s: string) =>
  (s.match(/\(/g) ?? []).length === (s.match(/\)/g) ?? []).length && (s.match(/`/g) ?? []).length % 2 === 0;

describe('help', () => {
  it('every summary is a whole phrase: never cut inside parentheses or backticks', () => {
    const cut = everyCommand().filter(({ cmd }) => !balanced(cmd.summary()));
    expect(cut.map(({ path, cmd }) => `${path}: ${cmd.summary()}`)).toEqual([]);
  });

  it('orders --help lists whole summaries', async () => {
    const text = (await help(['orders'])).replace(/\s+/g, ' ');
    expect(text).toContain('list [options] List orders created between `from` and `to`, newest first ');
    expect(text).toContain('statuses The 11-row order status dictionary (stable; fetch once) ');
    expect(text).toContain(
      'patch [options] <ID> Move an order to ACCEPTED, READY, DELIVERED or CANCELLED comment',
    );
  });

  it('every group says what it holds (no "X commands" placeholder)', () => {
    const groups = everyCommand().filter(({ cmd }) => cmd.commands.length > 0);
    expect(groups.length).toBeGreaterThan(10);
    const vague = groups.filter(({ cmd }) => /^\S+ commands$/.test(cmd.description()) || !cmd.summary());
    expect(vague.map(({ path, cmd }) => `${path}: ${cmd.description()}`)).toEqual([]);
  });

  it('operator orders is described by the verbs it has', async () => {
    const orders = everyCommand().find(({ path }) => path === 'operator orders')!.cmd;
    expect(orders.commands.map((c) => c.name()).sort()).toEqual(['cart', 'create', 'status']);
    expect(orders.description()).not.toMatch(/\b(list|read|comment)\b/);
    expect(orders.description()).toMatch(/create/);
    expect(orders.description()).toMatch(/cart/);
    expect(orders.description()).toMatch(/status/);
    const menuItems = everyCommand().find(({ path }) => path === 'menu items')!.cmd;
    expect(menuItems.description()).not.toMatch(/snooze|stock/);
  });

  it('every help page fits 80 columns (only a long quoted JSON example may not)', async () => {
    const too: string[] = [];
    for (const { path } of everyCommand()) {
      const text = await help(path.split(' '));
      for (const line of text.split('\n'))
        if (line.length > 80 && !/'[^']{50,}'/.test(line)) too.push(`${path}: ${line}`);
    }
    expect(too).toEqual([]);
  }, 30_000);

  it('descriptions are paragraphs, not lines broken by hand (which wrap raggedly)', () => {
    const ragged = everyCommand().filter(({ cmd }) =>
      cmd
        .createHelp()
        .commandDescription(cmd)
        .split(/\n\n/)
        .some((para) => para.includes('\n') && para.split('\n').some((l) => l.length > 60)),
    );
    expect(ragged.map(({ path }) => path)).toEqual([]);
  });

  it('long examples continue on the next line with a backslash, so they still paste', async () => {
    const text = await help(['orders', 'list']);
    expect(text).toContain(
      '  $ partner orders list --from 2024-05-01T00:00:00Z --to 2024-05-02T00:00:00Z \\\n      --status ACCEPTED\n',
    );
  });

  it('on a terminal, help wraps at its width', async () => {
    const wide = await help(['bootstrap'], { tty: true, columns: 160 });
    expect(Math.max(...wide.split('\n').map((l) => l.length))).toBeGreaterThan(100);
    const narrow = await help(['bootstrap'], { tty: true, columns: 60 });
    expect(Math.max(...narrow.split('\n').map((l) => l.length))).toBeLessThanOrEqual(60);
  });
});

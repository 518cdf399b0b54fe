import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { MANIFEST } from '../../src/cli/manifest/data.js';
import { buildProgram } from '../../src/cli/program.js';
import { fakePrompter, tempDir } from './run-cli.js';

// The registered command tree carries the documented names and flags (docs/cli.md).

function tree(): Command {
  return buildProgram(
    {
      stdout: { write: () => true },
      stderr: { write: () => true },
      stdin: process.stdin,
      stdoutIsTTY: false,
      stderrIsTTY: false,
      stdinIsTTY: false,
      env: {},
      color: false,
      prompter: fakePrompter(),
      clock: { now: Date.now, sleep: async () => undefined },
      configDir: tempDir(),
      cwd: process.cwd(),
    },
    MANIFEST,
    { code: 0 },
  );
}

function find(root: Command, path: string): Command {
  let cur = root;
  for (const name of path.split(' ')) {
    const next = cur.commands.find((c) => c.name() === name);
    if (!next) throw new Error(`no command "${path}" (stuck at ${name})`);
    cur = next;
  }
  return cur;
}

const PINNED: [string, string[], string[]][] = [
  // command, positional args, flags
  ['profiles add', ['NAME'], ['--key', '--secret', '--webhook-secret', '--default']],
  ['profiles list', [], []],
  ['profiles use', ['NAME'], []],
  ['profiles remove', ['NAME'], []],
  ['profiles show', ['NAME'], []],
  ['branches list', [], ['--page', '--size', '--all']],
  ['branches get', ['ID'], []],
  ['orders list', [], ['--from', '--to', '--branch', '--status', '--all']],
  ['orders get', ['ID'], []],
  ['orders patch', ['ID'], ['--status', '--reason']],
  ['orders comment', ['ID', 'TEXT'], []],
  ['orders statuses', [], []],
  ['menu get', [], ['--brand', '--branch']],
  ['menu sync', [], ['--brand', '--branch', '--include']],
  ['menu publish', [], ['--brand', '--branch']],
  ['items availability', ['SKU'], ['--branch', '--available', '--unavailable']],
  ['items snooze', ['SKU'], ['--branch', '--until', '--for']],
  ['items stock', ['STOCKS'], ['--branch']],
  ['oos-activity summaries', [], []],
  ['price-groups delete', ['ID'], ['--yes']],
  ['api', ['METHOD', 'PATH'], ['--data', '--field', '--idempotency-key']],
  ['listen', [], ['--port', '--host', '--secret', '--events', '--forward-to', '--local']],
  ['webhooks sign', ['FILE'], ['--secret']],
  ['webhooks verify', ['FILE'], ['--secret', '--signature']],
  ['completion', ['SHELL'], []],
  ['local start', [], ['--port', '--host', '--data', '--seed', '--retry-schedule', '--durability']],
  ['operator businesses list', [], []],
  ['operator businesses create', [], ['--title']],
  ['operator credentials create', [], ['--business', '--scopes', '--rate-limit']],
  ['operator credentials list', [], []],
  ['operator credentials rotate', ['KEY'], ['--grace']],
  ['operator credentials revoke', ['KEY'], []],
  ['operator credentials scopes', ['KEY'], ['--set']],
  ['operator webhooks add', [], ['--business', '--url', '--event', '--brand', '--branch']],
  ['operator webhooks list', [], []],
  ['operator webhooks remove', ['ID'], []],
  ['operator webhooks secret', [], ['--business', '--rotate']],
  ['operator webhooks log', [], ['--event-id', '--status']],
  ['operator webhooks replay', ['EVENT_ID'], []],
  ['operator orders create', [], ['--business', '--brand', '--branch', '--items']],
  ['operator orders cart', ['ID'], []],
  ['operator orders status', ['ID', 'STATUS'], []],
];

describe('command names (docs/cli.md)', () => {
  const root = tree();
  for (const [path, args, flags] of PINNED) {
    it(`partner ${path} ${args.join(' ')} ${flags.join(' ')}`, () => {
      const cmd = find(root, path);
      expect(cmd.registeredArguments.map((a) => a.name())).toEqual(args);
      const longs = cmd.options.map((o) => o.long);
      for (const f of flags) expect(longs, `${path} ${f}`).toContain(f);
    });
  }

  it('operator commands take --data DIR, --server URL and --token T', () => {
    const longs = find(root, 'operator').options.map((o) => o.long);
    expect(longs).toEqual(['--data', '--server', '--token']);
  });

  it('every command has a help text with an example', () => {
    const walk = (c: Command, path: string[]): void => {
      for (const sub of c.commands) {
        const p = [...path, sub.name()];
        if (sub.commands.length > 0) walk(sub, p);
        else if (sub.name() !== 'help') {
          let text = '';
          sub.configureOutput({ writeOut: (s) => (text += s) });
          sub.outputHelp();
          expect(text, p.join(' ')).toMatch(/Examples?:\n\s+\$ .*partner /);
        }
      }
    };
    walk(root, []);
  });
});

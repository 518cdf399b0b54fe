import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { deriveCommand } from '../../src/cli/commands/derive.js';
import { OVERRIDES } from '../../src/cli/commands/overrides.js';
import { buildManifest } from '../../src/cli/manifest/build.js';
import { OPERATION_LIST } from '../../src/contract/operations.js';
import { runCli } from './run-cli.js';

// Issue 21 point 16: the help of every generated flag says what it takes (from the contract's
// schemas: accepted forms, enum values, bounds, defaults), never only its own name again
// (`--from <from>  from`).

const root = fileURLToPath(new URL('../../', import.meta.url));
const commands = buildManifest(OPERATION_LIST)
  .ops.map((op) => deriveCommand(op, OVERRIDES[op.id]))
  .filter((c) => c !== undefined && !c.override?.replace && c.flags.length > 0);

/** The help text of `--flag` in commander's Options list (its wrapped lines joined). */
function flagHelp(help: string, flag: string): string | undefined {
  const lines = help.split('\n');
  const i = lines.findIndex((l) => new RegExp(`^  ${flag}( <[^>]+>)?  `).test(l));
  if (i < 0) return undefined;
  const term = /^ {2}\S+(?: <[^>]+>)? +/.exec(lines[i]!)![0];
  const text = [lines[i]!.slice(term.length)];
  for (const l of lines.slice(i + 1)) {
    if (!/^ {4,}\S/.test(l) || /^ {2}-/.test(l)) break;
    text.push(l.trim());
  }
  return text.join(' ');
}

/** The words of a help text that are not the flag's own name (`--branch-id` → branch, id). */
function beyondName(text: string, names: string[]): string[] {
  const own = new Set(names.flatMap((n) => n.split(/[-_]/)));
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '' && !own.has(w) && !['also', 'required'].includes(w));
}

describe('generated flags have help beyond their name', () => {
  it('covers the generated commands', () => {
    expect(commands.length).toBeGreaterThan(50);
  });

  it.each(commands.map((c) => [c!.path.join(' '), c!] as const))('partner %s --help', async (_, c) => {
    const r = await runCli([...c.path, '--help']);
    expect(r.code).toBe(0);
    for (const f of c.flags) {
      const text = flagHelp(r.stdout, `--${f.name}`);
      expect(text, `--${f.name} in\n${r.stdout}`).toBeDefined();
      const names = [f.name, f.field.name, ...f.aliases];
      expect(beyondName(text!, names), `--${f.name}: "${text}"`).not.toEqual([]);
    }
  });
});

describe('through the binary', () => {
  const help = (args: string[]) =>
    spawnSync(process.execPath, [join(root, 'bin/partner.js'), ...args, '--help'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
    }).stdout;

  it('orders list: the time forms, the status filter, the page bounds and default', () => {
    const text = help(['orders', 'list']);
    expect(flagHelp(text, '--from')).toMatch(/ISO 8601.*2024-05-01.*now.*30m/);
    expect(flagHelp(text, '--status')).toMatch(/ACCEPTED/);
    expect(flagHelp(text, '--size')).toMatch(/1 to 100.*default 20/);
  });

  it('an enum, bounds and a boolean', () => {
    expect(flagHelp(help(['operator', 'webhooks', 'add']), '--event')).toMatch(
      /one of service\.order\.created\.v2, .*all/,
    );
    const branches = help(['branches', 'create']);
    expect(flagHelp(branches, '--lat')).toMatch(/number -90 to 90/);
    expect(flagHelp(branches, '--is-busy')).toMatch(/--no-is-busy for false/);
  });
});

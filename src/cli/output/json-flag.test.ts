import { describe, expect, it } from 'vitest';
import { MANIFEST } from '../manifest/data.js';
import { buildProgram, firstCommandWord } from '../program.js';
import { processIo } from '../io.js';
import { normalizeJsonFlag } from './json-flag.js';

const program = buildProgram(processIo(), MANIFEST, { code: 0 });
const norm = (line: string) => normalizeJsonFlag(program, line.split(' ')).join(' ');

describe('--json [FIELDS]: which word after --json is a field list', () => {
  it('a field list after --json is taken as one', () => {
    expect(norm('orders list --json id,status')).toBe('orders list --json=id,status');
    expect(norm('orders list --json id')).toBe('orders list --json=id');
    expect(norm('orders get 12 --json id,total')).toBe('orders get 12 --json=id,total');
  });

  it('--json alone, before an option or at the end, keeps the whole payload', () => {
    expect(norm('orders list --json')).toBe('orders list --json');
    expect(norm('orders list --json --all')).toBe('orders list --json --all');
  });

  it('a subcommand or a missing required argument after --json is not a field list', () => {
    expect(norm('--json orders statuses')).toBe('--json= orders statuses');
    expect(norm('orders --json statuses')).toBe('orders --json= statuses');
    expect(norm('orders get --json 1042')).toBe('orders get --json= 1042');
    expect(norm('orders comment 12 --json hello')).toBe('orders comment 12 --json= hello');
    // …unless it has a comma: then it can only be a field list.
    expect(norm('orders get --json id,status 1042')).toBe('orders get --json=id,status 1042');
    expect(norm('profiles show --json name')).toBe('profiles show --json= name');
    expect(norm('profiles show --json=name')).toBe('profiles show --json=name');
  });

  it('option values are not mistaken for commands', () => {
    expect(norm('--profile orders --json id branches list')).toBe('--profile orders --json=id branches list');
    expect(norm('orders list --json=id,total')).toBe('orders list --json=id,total');
  });

  it('the first command word skips the values of --jq, --template and a --json field list', () => {
    const groups = (w: string) => ['orders', 'branches'].includes(w);
    expect(firstCommandWord(['--jq', '.[]', 'orders', 'list'], groups)).toBe('orders');
    expect(firstCommandWord(['--template', '{{id}}', 'branches', 'list'], groups)).toBe('branches');
    expect(firstCommandWord(['--json', 'id,title', 'branches', 'list'], groups)).toBe('branches');
    expect(firstCommandWord(['--json', 'orders', 'list'], groups)).toBe('orders');
  });
});

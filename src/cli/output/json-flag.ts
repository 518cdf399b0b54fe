import type { Command } from 'commander';

// `--json` takes an optional field list (`--json id,status`), and commander would take any word
// after it as that list: `orders get --json 1042`, `partner --json orders list`. This decides,
// before parsing, whether the word after a bare `--json` is a field list, and spells the flag out
// (`--json=id,status`, or `--json=` for the whole payload) so commander cannot misread it.

const FIELD_LIST = /^[A-Za-z_][A-Za-z0-9_]*(,[A-Za-z_][A-Za-z0-9_]*)*,?$/;

function findOption(cmd: Command, flag: string) {
  for (let c: Command | null = cmd; c; c = c.parent) {
    const o = c.options.find((x) => x.long === flag || x.short === flag);
    if (o) return o;
  }
  return undefined;
}

/**
 * The word after `--json` is a field list when it looks like one and the command line cannot
 * mean something else there: a subcommand, or an argument of the command not given yet (a comma
 * makes it a field list whatever the position). `--json=FIELDS` is never ambiguous.
 */
export function normalizeJsonFlag(root: Command, argv: readonly string[]): string[] {
  const out: string[] = [];
  let cmd = root;
  let positional = 0;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      out.push(...argv.slice(i));
      break;
    }
    if (a === '--json') {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('-')) {
        out.push(a);
        continue;
      }
      const sub = cmd.commands.some((c) => c.name() === next || c.aliases().includes(next));
      const declared = cmd.registeredArguments;
      const open = declared.some((x) => x.variadic) || positional < declared.length;
      if (FIELD_LIST.test(next) && !sub && (!open || next.includes(','))) {
        out.push(`--json=${next}`);
        i++;
      } else out.push('--json=');
      continue;
    }
    out.push(a);
    if (a.startsWith('-')) {
      const o = a.includes('=') ? undefined : findOption(cmd, a);
      if (o && (o.required || o.optional) && i + 1 < argv.length) out.push(argv[++i]!);
      continue;
    }
    const sub = cmd.commands.find((c) => c.name() === a || c.aliases().includes(a));
    if (sub) {
      cmd = sub;
      positional = 0;
    } else positional++;
  }
  return out;
}

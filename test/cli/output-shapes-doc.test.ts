import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MANIFEST } from '../../src/cli/manifest/data.js';
import { RECORD_FIELDS } from '../../src/cli/output/record-fields-data.js';

// docs/cli.md lists what `--json` prints for every list command: this keeps that table true to
// the contract (a page for paginated operations, an array for the others, every list covered).

const doc = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
const section = doc.slice(doc.indexOf('### Output controls'), doc.indexOf('## Errors and exit codes'));
const rows = new Map(
  [...section.matchAll(/^\| `([a-z -]+)` \| (page|array) of /gm)].map((m) => [m[1]!, m[2]!] as const),
);

describe('docs/cli.md: the output shape of every list command', () => {
  const lists = MANIFEST.ops.filter((op) => {
    const rf = RECORD_FIELDS[op.id];
    return op.cli && rf && rf.shape !== 'record';
  });

  it('covers every operation that prints a list', () => {
    expect(lists.length).toBeGreaterThan(10);
    for (const op of lists) expect(rows.has(op.cli!.command.join(' ')), op.cli!.command.join(' ')).toBe(true);
  });

  it('says page exactly for the paginated ones', () => {
    for (const op of lists) {
      const cmd = op.cli!.command.join(' ');
      expect(rows.get(cmd), cmd).toBe(op.paginated ? 'page' : 'array');
      expect(RECORD_FIELDS[op.id]!.shape, cmd).toBe(op.paginated ? 'page' : 'list');
    }
  });
});

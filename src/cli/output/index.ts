// Output entry point: `--json` is written here without loading the table/colour libraries;
// human output loads them on demand (human.ts).

export interface RenderOptions {
  json: boolean;
  tty: boolean;
  color: boolean;
  now: number;
  opId?: string | undefined;
  /** Columns of the terminal (TTY only): tables are fitted to it. */
  width?: number | undefined;
}

export type Out = { write(s: string): unknown };

/** --json: the `data` payload only, pretty-printed (stable: documented in docs/cli.md). */
function renderJson(out: Out, data: unknown): void {
  out.write(`${JSON.stringify(data, null, 2) ?? 'null'}\n`);
}

/** Writes `data` for a program (--json), a person (TTY) or a pipe (TSV). */
export async function render(out: Out, data: unknown, o: RenderOptions): Promise<void> {
  if (o.json) {
    renderJson(out, data);
    return;
  }
  const { renderHuman } = await import('./human.js');
  renderHuman(out, data, o);
}

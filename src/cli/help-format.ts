// Help text as a person reads it at a terminal: commander wraps descriptions at the width it is
// given; example command lines (`  $ partner …`) it prints as they are, so long ones are broken
// here with shell continuations (` \`), between arguments and never inside quotes, so they still
// paste. Loaded with the command tree, so it is kept tiny.

const TOKEN = /(?:[^\s'"]+|'[^']*'|"[^"]*")+/g;

/** One `$ command` line folded to `width` columns with ` \` continuations (flags kept with their values). */
function foldCommandLine(indent: string, command: string, width: number): string {
  const tokens = command.match(TOKEN) ?? [];
  // A flag and its value stay together: `--from 2024-05-01T00:00:00Z`.
  const units: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const next = tokens[i + 1];
    if (
      t.startsWith('-') &&
      !t.includes('=') &&
      next !== undefined &&
      !next.startsWith('-') &&
      next !== '|'
    ) {
      units.push(`${t} ${next}`);
      i++;
    } else units.push(t);
  }
  const first = `${indent}$ `;
  const more = `${indent}    `;
  const lines: string[] = [];
  let line = first;
  let empty = true;
  for (const u of units) {
    // Room for the unit and, on every line but the last, the ` \` continuation.
    if (!empty && line.length + 1 + u.length + 2 > width) {
      lines.push(`${line} \\`);
      line = more + u;
    } else line += (empty ? '' : ' ') + u;
    empty = false;
  }
  lines.push(line);
  return lines.join('\n');
}

/** Folds every over-long `$ …` example line of a help text. */
export function foldExamples(text: string, width: number): string {
  if (!text.includes('$ ')) return text;
  return text
    .split('\n')
    .map((l) => {
      const m = /^(\s*)\$ (.*)$/.exec(l);
      return m && l.length > width ? foldCommandLine(m[1]!, m[2]!, width) : l;
    })
    .join('\n');
}

/**
 * A description as help shows it: paragraphs whose lines were broken by hand for some width
 * (any line over 60 columns) are joined back into one line each, so the help wraps them at the
 * real width instead of breaking each long line again (ragged text). Short lines stay lines.
 */
export function reflowDescription(text: string): string {
  return text
    .split('\n\n')
    .map((para) => (para.split('\n').some((l) => l.length > 60) ? para.replace(/\s*\n\s*/g, ' ') : para))
    .join('\n\n');
}

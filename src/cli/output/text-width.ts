import wrapAnsi from 'wrap-ansi';
import { displayWidth } from './display-width.js';

// Wrapping at word boundaries for a terminal. Apart from the widths (display-width.ts) because it
// loads wrap-ansi and its string-width, ansi-styles and east-asian-width tables (~30 KB): the
// command tree loads this only when it writes help at a terminal, so every other start skips them.

/**
 * Text broken at spaces into lines of at most `width` cells, by wrap-ansi (colour codes and wide
 * characters counted as a terminal draws them). A word longer than the width (a URL, a token) is
 * never cut: it gets a line of its own and overflows it, so it can still be copied whole. `sep`
 * breaks only there instead (e.g. ' · ' for a list), keeping it at line ends.
 */
export function wrapText(text: string, width: number, sep = ' '): string[] {
  if (width <= 0 || displayWidth(text) <= width) return [text];
  // Inside a list item the spaces become no-break spaces for wrap-ansi, then spaces again.
  const src =
    sep === ' '
      ? text
      : text
          .split(sep)
          .join(`${sep.trimEnd()}\u0000`)
          .replace(/ /g, NBSP)
          .replace(/\u0000/g, ' ');
  const out = wrapAnsi(src, width, { hard: false, trim: true, wordWrap: true }).split('\n');
  return sep === ' ' ? out : out.map((l) => l.replaceAll(NBSP, ' '));
}

const NBSP = '\u00a0';

/**
 * What a command writes, wrapped at word boundaries to the terminal's width, each line's indent
 * kept on its continuation lines. Only on a terminal: piped output keeps its lines whole, since
 * scripts read them. `columns` is the stream's (undefined when it does not say, or not a TTY).
 */
export function wrapForTerminal(text: string, columns: number | undefined): string {
  if (!columns || columns < 20) return text;
  return text
    .split('\n')
    .map((line) => {
      if (displayWidth(line) <= columns) return line;
      const indent = /^ */.exec(line)![0];
      return wrapText(line.slice(indent.length), columns - indent.length)
        .map((l) => indent + l)
        .join('\n');
    })
    .join('\n');
}

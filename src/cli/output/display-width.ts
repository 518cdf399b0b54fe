// Terminal width of text, for layouts that must fit a line (the live watch table, key hints,
// tables). Wrapping is text-width.ts's, apart: it loads wrap-ansi, which no API command needs at
// start-up (docs/development.md, start-up).
// A person's terminal draws CJK and emoji in two cells and combining marks in none, so
// String#length is not the width. Per grapheme (Intl.Segmenter): controls and lone marks 0,
// East Asian wide/fullwidth and emoji 2, the rest 1. Good enough for names, titles and money.

// Made on first use: building a segmenter loads ICU's break rules, which most commands never need.
let segmenter: Intl.Segmenter | undefined;
function graphemes(text: string): Intl.Segments {
  if (!segmenter) segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });
  return segmenter.segment(text);
}
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;
const ZERO = /^[\p{Mn}\p{Me}\p{Cf}]/u;
const EMOJI = /\p{Emoji_Presentation}|\uFE0F/u;

function isWide(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0x303e) ||
    (cp >= 0x3041 && cp <= 0x33ff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xa000 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  );
}

function graphemeWidth(g: string): number {
  const cp = g.codePointAt(0) ?? 0;
  if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || ZERO.test(g)) return 0;
  if (EMOJI.test(g) || isWide(cp)) return 2;
  return 1;
}

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

/** Cells the text takes on a terminal (colour codes count as nothing). */
export function displayWidth(text: string): number {
  let w = 0;
  for (const { segment } of graphemes(stripAnsi(text))) w += graphemeWidth(segment);
  return w;
}

/** The text cut to at most `width` cells, ending in `…` when something was cut. Plain text only. */
export function truncate(text: string, width: number): string {
  if (width <= 0) return '';
  if (displayWidth(text) <= width) return text;
  let out = '';
  let w = 0;
  for (const { segment } of graphemes(text)) {
    const gw = graphemeWidth(segment);
    if (w + gw > width - 1) break;
    out += segment;
    w += gw;
  }
  return `${out}…`;
}

/** The text cut or padded with spaces to exactly `width` cells. Plain text only. */
export function fitText(text: string, width: number): string {
  const t = truncate(text, width);
  return t + ' '.repeat(Math.max(0, width - displayWidth(t)));
}

interface FitColumn {
  /** Cells the column would like (content and header included). */
  want: number;
  /** Cells below which it is dropped rather than squeezed; `want` when it cannot shrink. */
  min: number;
  /** Lower drops first; a column without one is never dropped. */
  dropOrder?: number;
}

/**
 * Widths for columns sharing `width` cells (separators included by the caller in `want`):
 * shrinks the squeezable columns towards their `min`, then drops columns by `dropOrder`.
 * A dropped column gets width 0.
 */
export function fitColumns(cols: readonly FitColumn[], width: number): number[] {
  const w = cols.map((c) => c.want);
  const total = () => w.reduce((a, b) => a + b, 0);
  const order = cols
    .map((c, i) => ({ i, d: c.dropOrder }))
    .filter((x): x is { i: number; d: number } => x.d !== undefined)
    .sort((a, b) => a.d - b.d);
  for (;;) {
    let over = total() - width;
    if (over <= 0) return w;
    for (let i = 0; i < cols.length && over > 0; i++) {
      if (w[i] === 0) continue;
      const give = Math.min(over, w[i]! - Math.min(cols[i]!.min, w[i]!));
      w[i]! -= give;
      over -= give;
    }
    if (over <= 0) return w;
    const next = order.shift();
    if (!next) return w;
    // Dropping gives back the room taken from the others: squeeze again from their wishes.
    w[next.i] = 0;
    for (let i = 0; i < cols.length; i++) if (w[i] !== 0) w[i] = cols[i]!.want;
  }
}

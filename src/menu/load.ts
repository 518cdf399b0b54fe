import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { isMap, isPair, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import type { z } from 'zod';
import { formatPath, type MenuFile, MenuFileSchema } from './schema.js';

// Reads a menu file (YAML or JSON: JSON is parsed by the same YAML 1.2 parser, which keeps the
// source position of every node) and validates it as a whole, so that every problem is reported
// as `FILE:LINE: path: message` before a single request is sent.

export interface FileProblem {
  line: number;
  path: string;
  message: string;
}

export class MenuFileError extends Error {
  override readonly name = 'MenuFileError';
  constructor(
    readonly file: string,
    readonly problems: FileProblem[],
  ) {
    super(`${file}: ${problems.length} problem${problems.length === 1 ? '' : 's'} in the menu file`);
  }

  /** One `FILE:LINE: path: message` line per problem (the format editors jump to; no line for a menu object). */
  lines(): string[] {
    return this.problems.map(
      (p) =>
        `${this.file}:${p.line > 0 ? `${p.line}:` : ''} ${p.path === '' ? '' : `${p.path}: `}${p.message}`,
    );
  }
}

export interface ParsedMenu {
  menu: MenuFile;
  /** The line of the node at a path of the file (or of its nearest ancestor). */
  lineOf(path: readonly PropertyKey[]): number;
}

export interface LoadedMenu extends ParsedMenu {
  /** As the user typed it (used in messages). */
  display: string;
  /** Absolute path. */
  path: string;
}

/** The node at `path`, or the deepest ancestor that exists (a missing key points at its map). */
function nodeAt(root: unknown, path: readonly PropertyKey[]): { node: Node | undefined } {
  let cur = root as Node | undefined;
  for (const seg of path) {
    if (isMap(cur)) {
      const pair = cur.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) return { node: cur };
      if (pair.value === null || pair.value === undefined) return { node: pair.key as Node };
      cur = pair.value as Node;
    } else if (isSeq(cur) && typeof seg === 'number') {
      const next = cur.items[seg] as Node | undefined;
      if (!next) return { node: cur };
      cur = next;
    } else return { node: cur };
  }
  return { node: cur };
}

function keyNodeOf(map: Node | undefined, key: string): Node | undefined {
  if (!isMap(map)) return undefined;
  const pair = map.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === key);
  return pair?.key as Node | undefined;
}

function lineOf(lc: LineCounter, node: Node | undefined): number {
  const offset = node?.range?.[0];
  return offset === undefined ? 1 : lc.linePos(offset).line;
}

const NOUN: Record<string, string> = {
  object: 'a mapping',
  record: 'a mapping',
  array: 'a list',
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  null: 'null',
  undefined: 'missing',
};

/** Plain-language messages for the zod defaults that read badly in a file; custom ones stay. */
function message(issue: z.core.$ZodIssue): string {
  const m = /^Invalid input: expected (\w+), received (\w+)$/.exec(issue.message);
  if (m) {
    if (m[2] === 'undefined') return 'is required';
    return `must be ${NOUN[m[1]!] ?? m[1]}, not ${NOUN[m[2]!] ?? m[2]}`;
  }
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys;
    return `unknown field${keys.length > 1 ? 's' : ''} ${keys.map((k) => `"${k}"`).join(', ')}`;
  }
  if ((issue.code === 'too_small' || issue.code === 'too_big') && /^Too (small|big)/.test(issue.message)) {
    const small = issue.code === 'too_small';
    const n = Number(small ? issue.minimum : issue.maximum);
    const bound = small ? 'at least' : 'at most';
    if (issue.origin === 'string')
      return small && n === 1 ? 'must not be empty' : `must be ${bound} ${n} characters long`;
    if (issue.origin === 'array') return `must have ${bound} ${n} entr${n === 1 ? 'y' : 'ies'}`;
    return `must be ${bound} ${n}`;
  }
  return issue.message;
}

/** Parses and validates menu text; throws MenuFileError with every problem found. */
export function parseMenuText(text: string, display: string): ParsedMenu {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new MenuFileError(
      display,
      doc.errors.map((e) => ({
        line: e.linePos?.[0]?.line ?? 1,
        path: '',
        message: e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, ''),
      })),
    );
  }
  const data = doc.toJS({ maxAliasCount: 1000 }) as unknown;
  if (data === null || data === undefined) {
    throw new MenuFileError(display, [{ line: 1, path: '', message: 'the file is empty' }]);
  }
  const parsed = MenuFileSchema.safeParse(data);
  if (parsed.success)
    return { menu: parsed.data, lineOf: (path) => lineOf(lc, nodeAt(doc.contents, path).node) };
  const problems = parsed.error.issues.map((issue) => {
    const { node } = nodeAt(doc.contents, issue.path);
    let at = node;
    if (issue.code === 'unrecognized_keys') at = keyNodeOf(node, issue.keys[0]!) ?? node;
    const path = issue.path.length ? formatPath(issue.path) : '';
    return { line: lineOf(lc, at), path, message: message(issue) };
  });
  problems.sort((a, b) => a.line - b.line);
  throw new MenuFileError(display, problems);
}

/**
 * Validates a menu given as an object (built in code, or parsed elsewhere); throws MenuFileError
 * with every problem (line 0: an object has no lines). `display` names it in messages.
 */
export function validateMenu(value: unknown, display = 'menu'): ParsedMenu & { display: string } {
  const parsed = MenuFileSchema.safeParse(value);
  if (parsed.success) return { menu: parsed.data, lineOf: () => 0, display };
  throw new MenuFileError(
    display,
    parsed.error.issues.map((issue) => ({
      line: 0,
      path: issue.path.length ? formatPath(issue.path) : '',
      message: message(issue),
    })),
  );
}

/** Reads FILE (relative to `cwd`) and validates it. */
export async function loadMenuFile(file: string, cwd: string): Promise<LoadedMenu> {
  const path = isAbsolute(file) ? file : resolve(cwd, file);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : String(code);
    throw new MenuFileError(file, [{ line: 1, path: '', message: `cannot read the menu file (${why})` }]);
  }
  return { display: file, path, ...parseMenuText(text, file) };
}

import { UsageError } from '../errors.js';
import type { Io } from '../io.js';
import { readStdin, readTextArg } from '../input.js';

// What `partner api` reads from its flags, as gh's `api` does: -f key=value (a string), -F
// key=value (typed: numbers, true/false/null, @file or @- for a file's or stdin's text), nested
// keys (`a[b]=1`, `tags[]=x`), and -H 'Name: value' headers.

type Obj = Record<string, unknown>;

/** `items[0][id]`-free gh syntax: `name`, `name[]`, `name[key]`, `name[key][]`… → path segments ('' = append). */
function keyPath(key: string, flag: string): string[] {
  const m = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
  if (!m) throw new UsageError(`${flag} ${key}: a key is a name, optionally followed by [key] or [] parts`);
  const rest = [...m[2]!.matchAll(/\[([^[\]]*)\]/g)].map((x) => x[1]!);
  return [m[1]!, ...rest];
}

function put(target: Obj, path: string[], value: unknown, flag: string, key: string): void {
  let node: Obj | unknown[] = target;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i]!;
    const last = i === path.length - 1;
    const nextIsArray = !last && path[i + 1] === '';
    if (Array.isArray(node)) {
      if (seg !== '') throw new UsageError(`${flag} ${key}: mixes a list and named keys`);
      if (last) {
        node.push(value);
        return;
      }
      // `items[][sku]=A -F items[][qty]=2`: fields fill the list's last object until a key
      // comes again, which starts the next object (gh's rule).
      const prev: unknown = node.at(-1);
      const nextKey = path[i + 1]!;
      const reuse: boolean =
        !nextIsArray &&
        typeof prev === 'object' &&
        prev !== null &&
        !Array.isArray(prev) &&
        (!(nextKey in prev) || i + 2 < path.length);
      const child: Obj | unknown[] = reuse ? (prev as Obj) : nextIsArray ? [] : {};
      if (!reuse) node.push(child);
      node = child;
      continue;
    }
    if (seg === '') throw new UsageError(`${flag} ${key}: [] must follow a name`);
    if (last) {
      node[seg] = value;
      return;
    }
    const existing: unknown = node[seg];
    if (existing === undefined) node[seg] = nextIsArray ? [] : {};
    else if (nextIsArray !== Array.isArray(existing) || typeof existing !== 'object' || existing === null)
      throw new UsageError(`${flag} ${key}: ${seg} is already given as another kind of value`);
    node = node[seg] as Obj | unknown[];
  }
}

/** A -F value: true/false/null, an integer or decimal number, @file / @- text, else the string. */
async function typedValue(raw: string, key: string, io: Io): Promise<unknown> {
  if (raw === 'true' || raw === 'false') return raw === 'true';
  if (raw === 'null') return null;
  if (/^-?\d+(\.\d+)?$/.test(raw) && Number.isSafeInteger(Math.trunc(Number(raw)))) return Number(raw);
  if (raw === '@-') return (await readStdin(io, `-F ${key}=@-`)).replace(/\n$/, '');
  if (raw.startsWith('@')) return (await readTextArg(raw, `-F ${key}`, io)).text;
  return raw;
}

/** -f (strings) then -F (typed) fields, merged into one object. */
export async function parseFields(raw: readonly string[], typed: readonly string[], io: Io): Promise<Obj> {
  const out: Obj = {};
  const each = async (pairs: readonly string[], flag: '-f' | '-F') => {
    for (const pair of pairs) {
      const eq = pair.indexOf('=');
      if (eq < 0 && pair.endsWith('[]') && pair.length > 2) {
        // `tags[]` with no value: an empty list.
        const path = keyPath(pair, flag).slice(0, -1);
        put(out, path, [], flag, pair);
        continue;
      }
      if (eq <= 0) throw new UsageError(`${flag} expects key=value, got "${pair}"`);
      const key = pair.slice(0, eq);
      const text = pair.slice(eq + 1);
      put(out, keyPath(key, flag), flag === '-F' ? await typedValue(text, key, io) : text, flag, key);
    }
  };
  await each(raw, '-f');
  await each(typed, '-F');
  return out;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** -H 'Name: value' → lower-case name → value; a header given twice keeps the last. */
export function parseHeaders(list: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of list) {
    const colon = h.indexOf(':');
    const name = colon > 0 ? h.slice(0, colon).trim() : '';
    if (!TOKEN.test(name)) throw new UsageError(`-H expects 'Name: value', got "${h}"`);
    const value = h.slice(colon + 1).trim();
    if (/[\r\n]/.test(value)) throw new UsageError(`-H ${name}: the value must be one line`);
    out[name.toLowerCase()] = value;
  }
  return out;
}

/** Go's CanonicalHeaderKey, so `-i` shows `Content-Type` and `X-Request-Id` as gh does. */
export function headerName(name: string): string {
  return name
    .split('-')
    .map((w) => (w ? w[0]!.toUpperCase() + w.slice(1).toLowerCase() : w))
    .join('-');
}

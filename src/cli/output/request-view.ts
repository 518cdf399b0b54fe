import type { ChalkInstance } from 'chalk';
import type { z } from 'zod';
import type { LoggedRequest, LoggedRequestDetail } from '../../contract/schemas/operator.js';
import { isIsoDateTime, relativeTime } from './format.js';
import { displayWidth, truncate } from './display-width.js';

// The local server's request log for a person: one line per request (`partner logs tail`) and
// one request in full (`partner operator requests get`). Off a terminal: tab-separated raw values.

/** A request as the log lists it, and in full: the contract's shapes. */
export type LoggedRequestView = z.infer<typeof LoggedRequest>;
type LoggedRequestDetailView = z.infer<typeof LoggedRequestDetail>;

export function isLoggedRequestDetail(v: unknown): v is LoggedRequestDetailView {
  const r = v as Partial<LoggedRequestDetailView> | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.request_id === 'string' &&
    typeof r.status === 'number' &&
    typeof r.request === 'object' &&
    typeof r.response === 'object'
  );
}

/** 2xx green, 3xx cyan, 4xx yellow, 5xx red. */
function statusPaint(c: ChalkInstance, status: number): (s: string) => string {
  if (status >= 500) return c.red;
  if (status >= 400) return c.yellow;
  if (status >= 300) return c.cyan;
  return c.green;
}

const two = (n: number) => String(n).padStart(2, '0');

/** Local time of day with milliseconds: what a tail reader compares with their own clock. */
function timeOfDay(iso: string): string {
  const d = new Date(iso);
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

/** Cells of the path column of a request line (longer paths take more) and of the duration. */
const PATH_COL = 32;
const DURATION_COL = 8;

function durationText(ms: number): string {
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`;
}

/**
 * One request as a line. Terminal: `12:03:04.120  404  GET     /v1/partner/orders/9  6.3 ms
 * req_…  pk_…  resource_not_found`, the status coloured, fitted to `width` when given: first the
 * credential key goes, then the path is cut (down to 20 columns), then the error code. Otherwise
 * tab-separated: at (ISO), method, path, status, duration_ms, request_id, credential_key, error_code.
 */
export function requestLine(e: LoggedRequestView, tty: boolean, c: ChalkInstance, width?: number): string {
  if (!tty)
    return `${[e.at, e.method, e.path, e.status, e.duration_ms, e.request_id, e.credential_key ?? '', e.error_code ?? ''].join('\t')}\n`;
  const paint = statusPaint(c, e.status);
  const head = [timeOfDay(e.at), String(e.status), e.method.padEnd(6)];
  // Columns line up from one line to the next: the path is padded to a column of its own and
  // the duration right-aligned (a stream cannot size them from lines still to come).
  const mid = [durationText(e.duration_ms).padStart(DURATION_COL), e.request_id];
  let key: string | undefined = e.credential_key ?? '-';
  let error = e.error_code ?? undefined;
  let path = e.path;
  const cell = () => path + ' '.repeat(Math.max(0, PATH_COL - displayWidth(path)));
  const length = () =>
    [...head, cell(), ...mid, ...(key ? [key] : []), ...(error ? [error] : [])].reduce(
      (n, s, i) => n + displayWidth(s) + (i ? 2 : 0),
      0,
    );
  const fitPath = () => {
    const room = displayWidth(path) - (length() - (width ?? 0));
    if (room < displayWidth(path)) path = truncate(e.path, Math.max(20, room));
  };
  if (width && length() > width) key = undefined;
  if (width && length() > width) fitPath();
  if (width && length() > width) {
    error = undefined;
    path = e.path;
    fitPath();
  }
  // The padding is dropped again when the line had to give way (it would only push it wider).
  const shown = width && length() > width ? path : cell();
  const parts = [c.dim(head[0]!), paint(head[1]!), head[2]!, shown, c.dim(mid[0]!), mid[1]!];
  if (key !== undefined) parts.push(e.credential_key ? key : c.dim(key));
  if (error) parts.push(paint(error));
  return `${parts.join('  ')}\n`;
}

function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body; // cut off, or not JSON: as it is
  }
}

function sizeText(m: LoggedRequestDetailView['request']): string {
  const bytes = `${m.body_size.toLocaleString('en-US')} byte${m.body_size === 1 ? '' : 's'}`;
  return m.body_truncated
    ? `${bytes}, cut at ${(m.body ?? '').length.toLocaleString('en-US')} characters`
    : bytes;
}

/** One request in full: the summary, then each side's headers and body (pretty JSON). */
export function renderLoggedRequest(
  out: { write(s: string): unknown },
  e: LoggedRequestDetailView,
  o: { tty: boolean; now: number },
  c: ChalkInstance,
): void {
  if (!o.tty) {
    const flat: [string, unknown][] = [
      ['seq', e.seq],
      ['request_id', e.request_id],
      ['at', e.at],
      ['method', e.method],
      ['path', e.path],
      ['status', e.status],
      ['duration_ms', e.duration_ms],
      ['credential_key', e.credential_key ?? ''],
      ['error_code', e.error_code ?? ''],
      ['detail_dropped', e.detail_dropped],
    ];
    for (const [side, m] of [
      ['request', e.request],
      ['response', e.response],
    ] as const) {
      for (const [k, v] of Object.entries(m.headers)) flat.push([`${side}.headers.${k}`, v]);
      flat.push(
        [`${side}.body`, m.body ?? ''],
        [`${side}.body_size`, m.body_size],
        [`${side}.body_truncated`, m.body_truncated],
      );
    }
    for (const [k, v] of flat) out.write(`${k}\t${String(v).replace(/[\t\n]/g, ' ')}\n`);
    return;
  }
  const paint = statusPaint(c, e.status);
  out.write(
    `${c.bold(`${e.method} ${e.path}`)} → ${paint(String(e.status))} in ${durationText(e.duration_ms)}\n`,
  );
  const at = isIsoDateTime(e.at) ? `${e.at} ${c.dim(`(${relativeTime(e.at, o.now)})`)}` : e.at;
  const rows: [string, string][] = [
    ['request_id', `${e.request_id} ${c.dim(`(seq ${e.seq})`)}`],
    ['at', at],
    ['credential', e.credential_key ?? c.dim('none')],
  ];
  if (e.error_code) rows.push(['error', paint(e.error_code)]);
  for (const [k, v] of rows) out.write(`${c.dim(k.padEnd(10))}  ${v}\n`);
  if (e.detail_dropped) {
    out.write(
      `\n${c.dim('Headers and bodies were not kept (the memory budget of the log, or over 200 requests a second).')}\n`,
    );
    return;
  }
  for (const [title, m] of [
    ['Request', e.request],
    ['Response', e.response],
  ] as const) {
    out.write(`\n${c.bold(`${title} headers`)}\n`);
    for (const [k, v] of Object.entries(m.headers)) out.write(`  ${c.dim(`${k}:`)} ${v}\n`);
    if (m.body === null) {
      out.write(`${c.bold(`${title} body`)} ${c.dim('(none)')}\n`);
      continue;
    }
    out.write(`${c.bold(`${title} body`)} ${c.dim(`(${sizeText(m)})`)}\n`);
    out.write(`${pretty(m.body).replace(/^/gm, '  ')}\n`);
    if (m.body_truncated) out.write(`  ${c.dim('…')}\n`);
  }
}

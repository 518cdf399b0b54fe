// The one duration grammar of the project, for the CLI's flags (`--interval`, `--duration`,
// `--wait`, `--for`, `--grace`, `--timeout`) and the server's retry schedule
// (`--retry-schedule`, PARTNER_RETRY_SCHEDULE), and the one way a duration is shown to a person.
// A leaf: it depends on nothing, so the CLI and the server may both use it.
//
// Grammar: one or more `<number><unit>` parts, summed (`1h30m`, `1m 30s`), unit one of ms, s,
// m, h, d; or a bare number, which means seconds (`900`, `0.5`). No sign, no exponent.

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const BARE = /^\d+(?:\.\d+)?$/;
const PART = /(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*/y;

/** `2s`, `500ms`, `1h30m`, `1d`, `900` (seconds) → whole milliseconds; undefined if it is not a duration. */
export function parseDuration(text: string): number | undefined {
  const s = text.trim();
  if (BARE.test(s)) return Math.round(Number(s) * 1000);
  PART.lastIndex = 0;
  let total = 0;
  let end = 0;
  for (let m = PART.exec(s); m; m = PART.exec(s)) {
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    end = PART.lastIndex;
  }
  return end > 0 && end === s.length ? Math.round(total) : undefined;
}

/**
 * A duration as a person reads it: `800 ms`, `20 s`, `1 min 30 s`, `2 h 5 min`. Whole seconds
 * from one second up: a wait or an interval is read at a glance, not to the millisecond.
 */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min${s % 60 ? ` ${s % 60} s` : ''}`;
  const h = Math.floor(min / 60);
  return `${h} h${min % 60 ? ` ${min % 60} min` : ''}`;
}

import { spawnSync } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import autocannon from 'autocannon';

/**
 * The load generator's core while it runs: the servers under test are pinned to core 0, and an
 * unpinned generator is sometimes scheduled beside them, taking the CPU a ratio is about. Pinned
 * only for the run, so that children the suites start (browsers, CLIs, clusters) keep both cores.
 */
const pinnable =
  availableParallelism() > 1 && spawnSync('taskset', ['-pc', '0,1', String(process.pid)]).status === 0;
const pin = (cores) => pinnable && spawnSync('taskset', ['-pc', cores, String(process.pid)]);

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * Latencies of 2xx answers at full precision (autocannon's own histogram keeps whole milliseconds:
 * on a fast machine a floor's p99 of 1.9 ms reads 1 and a server's 2.0 reads 2, twice as slow).
 * From autocannon's `response` event, into one growing array per run.
 */
class Latencies {
  n = 0;
  xs = new Float64Array(1 << 16);
  add(ms) {
    if (this.n === this.xs.length) {
      const next = new Float64Array(this.xs.length * 2);
      next.set(this.xs);
      this.xs = next;
    }
    this.xs[this.n++] = ms;
  }
  /** The p-th percentile (0–100), nearest rank, in ms. */
  at(p) {
    if (this.n === 0) return Number.NaN;
    const s = this.xs.subarray(0, this.n).sort();
    return s[Math.min(this.n - 1, Math.ceil((p / 100) * this.n) - 1)];
  }
}

/** One autocannon run; resolves with req/s (mean over the run), p50/p99 latency in ms (2xx answers, µs precision) and error counts. */
export function load(opts) {
  pin('1');
  const lat = new Latencies();
  return new Promise((resolve, reject) => {
    const instance = autocannon({ connections: 50, duration: 5, ...opts }, (err, r) => {
      pin('0,1');
      if (err) return reject(err);
      resolve({
        rps: r.requests.average,
        count: r.requests.total,
        p50: round2(lat.at(50)),
        p99: round2(lat.at(99)),
        non2xx: r.non2xx,
        errors: r.errors + r.timeouts,
      });
    });
    instance.on('response', (_client, status, _bytes, ms) => {
      if (status >= 200 && status < 300) lat.add(ms);
    });
  });
}

const round2 = (x) => Math.round(x * 100) / 100;

export const fmt = (n, d = 0) =>
  Number(n).toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

/** The machine's 1-minute load average now, for the record (other work shares the cores). */
export const loadNote = () => `load average ${fmt(loadavg()[0], 1)} at the end`;

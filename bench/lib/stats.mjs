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

/** One autocannon run; resolves with req/s (mean over the run), p99 latency in ms and error counts. */
export function load(opts) {
  pin('1');
  return new Promise((resolve, reject) => {
    autocannon({ connections: 50, duration: 5, ...opts }, (err, r) => {
      pin('0,1');
      if (err) return reject(err);
      resolve({
        rps: r.requests.average,
        count: r.requests.total,
        p50: r.latency.p50,
        p99: r.latency.p99,
        non2xx: r.non2xx,
        errors: r.errors + r.timeouts,
      });
    });
  });
}

export const fmt = (n, d = 0) =>
  Number(n).toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

/** The machine's 1-minute load average now, for the record (other work shares the cores). */
export const loadNote = () => `load average ${fmt(loadavg()[0], 1)} at the end`;

// `npm run bench`: runs every suite in bench/suites (or those named on the command line),
// prints each result and rewrites the generated section of docs/benchmarks.md.
// A suite is a module exporting `title` and `async run({ log })` that returns markdown lines.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';

const root = new URL('../', import.meta.url);
const only = process.argv.slice(2);
const files = readdirSync(new URL('bench/suites/', root))
  .filter((f) => f.endsWith('.mjs'))
  // A name that is a suite's exact name picks that suite alone (`branches`, not pg-branches too).
  .filter(
    (f, _i, all) =>
      only.length === 0 || only.some((o) => (all.includes(`${o}.mjs`) ? f === `${o}.mjs` : f.includes(o))),
  )
  .sort();

const docPath = new URL('docs/benchmarks.md', root);
let doc = readFileSync(docPath, 'utf8');
const log = (...a) => process.stderr.write(`${a.join(' ')}\n`);
const when = new Date().toISOString().slice(0, 16).replace('T', ' ');
const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`;

for (const f of files) {
  const suite = await import(new URL(`bench/suites/${f}`, root).href);
  // What the suite before wrote (a PostgreSQL cluster's files, a data dir) goes to disk now, not
  // as writeback during this suite's measurements, where it stalls the fsyncs of the next server.
  spawnSync('sync');
  log(`\n== ${suite.title}`);
  const lines = await suite.run({ log });
  for (const l of lines) console.log(l);
  const name = f.replace(/\.mjs$/, '');
  const section = [
    `<!-- bench:${name} -->`,
    `### ${suite.title}`,
    '',
    `_${when} UTC, ${machine}_`,
    '',
    ...lines,
    `<!-- /bench:${name} -->`,
  ].join('\n');
  const re = new RegExp(`<!-- bench:${name} -->[\\s\\S]*?<!-- /bench:${name} -->`);
  doc = re.test(doc) ? doc.replace(re, section) : `${doc.trimEnd()}\n\n${section}\n`;
}
writeFileSync(docPath, doc);

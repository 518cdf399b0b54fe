import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// The page's files, bundled by scripts/build.mjs into dist/inspect/ and shipped in the package.
// From the bundle (dist/chunks/…) they are at ../inspect/; from the sources (tests), at the
// project's dist/inspect/.

export interface Asset {
  type: string;
  body: Buffer;
}

const FILES: Record<string, string> = {
  '/': 'index.html',
  '/assets/app.js': 'app.js',
  '/assets/app.css': 'app.css',
};

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

function assetsDir(): string {
  const candidates = [
    new URL('../inspect/', import.meta.url),
    new URL('../../../dist/inspect/', import.meta.url),
  ];
  for (const c of candidates) {
    const dir = fileURLToPath(c);
    if (existsSync(`${dir}index.html`)) return dir;
  }
  throw new Error('the inspect page is not built (dist/inspect/ is missing): run `npm run build`');
}

/** Every file of the page, read once at start: the server never touches the disk per request. */
export function loadAssets(dir = assetsDir()): Map<string, Asset> {
  const out = new Map<string, Asset>();
  for (const [path, file] of Object.entries(FILES)) {
    out.set(path, { type: TYPES[file.split('.').pop()!]!, body: readFileSync(`${dir}${file}`) });
  }
  return out;
}

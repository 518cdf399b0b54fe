import { accessSync, constants, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { root } from './harness.js';

// Debian's Chromium, headless, driven by playwright-core (no browser download of its own). CI
// (.ci/run) installs it and sets PARTNER_TEST_BROWSER=required: then a missing browser fails the
// suite instead of skipping it.

export const CHROMIUM = process.env.PARTNER_TEST_CHROMIUM ?? '/usr/bin/chromium';
export const browserRequired = process.env.PARTNER_TEST_BROWSER === 'required';

export function browserSupport(): { ok: true } | { ok: false; reason: string } {
  try {
    accessSync(CHROMIUM, constants.X_OK);
    return { ok: true };
  } catch {
    return { ok: false, reason: `${CHROMIUM} is not installed (apt-get install chromium)` };
  }
}

export interface Browser {
  context: BrowserContext;
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/** A fresh profile per launch (--user-data-dir through playwright's persistent context). */
export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'partner-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1400, height: 860 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    newPage: () => context.newPage(),
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Where the tests' screenshots go: docs/img/ when PARTNER_UPDATE_SCREENSHOTS=1 (they are committed
 * and shown in docs/inspect.md), else a temp folder, so a plain test run leaves the tree alone.
 */
export function screenshotDir(): string {
  if (process.env.PARTNER_UPDATE_SCREENSHOTS === '1') {
    const dir = join(root, 'docs/img');
    mkdirSync(dir, { recursive: true });
    return dir;
  }
  return mkdtempSync(join(tmpdir(), 'partner-shots-'));
}

/** Fails the page on any error it logs or throws (a CSP violation shows up here too). */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  return errors;
}

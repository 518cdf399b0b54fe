import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultConfigDir, defaultStateDir } from '../paths.js';
import type { MenuSnapshot } from '../../contract/inspect-wire.js';

// The server keeps only the latest snapshot of a store's menu. To show what a publish changed,
// inspect keeps the snapshots it has seen, per server, brand and branch: the last few versions,
// in the CLI's state folder (beside the profiles when the config dir was moved, as menu push does).

const KEEP = 3;

interface HistoryFile {
  base_url: string;
  brand_id: number;
  branch_id: number;
  versions: MenuSnapshot[];
}

export function menuHistoryDir(env: NodeJS.ProcessEnv, configDir: string): string {
  const moved = Boolean(env.PARTNER_CONFIG_DIR) || configDir !== defaultConfigDir(env);
  return join(moved ? configDir : defaultStateDir(env), 'inspect-menus');
}

export class MenuHistory {
  constructor(private readonly dir: string) {}

  private file(baseUrl: string, brand: number, branch: number): string {
    const id = createHash('sha256').update(`${baseUrl}\n${brand}\n${branch}`).digest('hex').slice(0, 24);
    return join(this.dir, `${id}.json`);
  }

  private read(path: string): HistoryFile | undefined {
    try {
      const f = JSON.parse(readFileSync(path, 'utf8')) as HistoryFile;
      return Array.isArray(f.versions) ? f : undefined;
    } catch {
      return undefined; // none yet, or unreadable: start over (it only feeds a highlight)
    }
  }

  /**
   * Records `snapshot` (its version, once) and answers the newest earlier version seen, if any.
   * A failure to write is not an error of the page: the highlight just has less to go on.
   */
  record(baseUrl: string, snapshot: MenuSnapshot): MenuSnapshot | undefined {
    const path = this.file(baseUrl, snapshot.brand_id, snapshot.branch_id);
    const f = this.read(path) ?? {
      base_url: baseUrl,
      brand_id: snapshot.brand_id,
      branch_id: snapshot.branch_id,
      versions: [],
    };
    const previous = f.versions
      .filter((v) => v.version < snapshot.version)
      .sort((a, b) => b.version - a.version)[0];
    if (!f.versions.some((v) => v.version === snapshot.version)) {
      // Live state (availability, stock, snooze) is left as first seen; only the publish matters here.
      f.versions = [...f.versions, snapshot].sort((a, b) => a.version - b.version).slice(-KEEP);
      try {
        mkdirSync(this.dir, { recursive: true, mode: 0o700 });
        const tmp = `${path}.${process.pid}.tmp`;
        writeFileSync(tmp, JSON.stringify(f), { mode: 0o600 });
        renameSync(tmp, path);
      } catch {
        // read-only home, full disk: the next run simply has no earlier version to compare with
      }
    }
    return previous;
  }
}

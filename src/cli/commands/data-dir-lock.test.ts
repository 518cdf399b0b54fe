import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LOCK_FILE_NAME, lockDataDir } from './data-dir-lock.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const dir = () => {
  const d = mkdtempSync(join(tmpdir(), 'partner-lock-'));
  dirs.push(d);
  return d;
};
/** The pid of a process that has exited. */
const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid!;
const lockAt = (d: string, info: object) => writeFileSync(join(d, LOCK_FILE_NAME), JSON.stringify(info));

describe('the data dir lock', () => {
  it('is a private file with our pid, then our URL; released, it is gone', async () => {
    const d = dir();
    const r = await lockDataDir(d);
    if (!r.ok) throw new Error('not locked');
    const file = join(d, LOCK_FILE_NAME);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ pid: process.pid, url: null });
    r.lock.setUrl('http://127.0.0.1:8787');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ url: 'http://127.0.0.1:8787' });
    r.lock.release();
    expect(existsSync(file)).toBe(false);
  });

  it('held by a running process: refused, with its pid and URL', async () => {
    const d = dir();
    lockAt(d, { pid: process.ppid, url: 'http://127.0.0.1:9', started_at: '' });
    expect(await lockDataDir(d)).toEqual({
      ok: false,
      heldBy: { pid: process.ppid, url: 'http://127.0.0.1:9', started_at: '' },
    });
  });

  it('left by a process that is gone, or naming our own pid: taken over', async () => {
    for (const pid of [deadPid(), process.pid]) {
      const d = dir();
      lockAt(d, { pid, url: 'http://127.0.0.1:9', started_at: '' });
      const r = await lockDataDir(d);
      expect(r.ok).toBe(true);
      if (r.ok) expect(r.lock.recoveredFrom).toBe(pid);
      expect(JSON.parse(readFileSync(join(d, LOCK_FILE_NAME), 'utf8')).pid).toBe(process.pid);
    }
  });

  it('an unreadable lock file is treated as stale after a short wait', async () => {
    const d = dir();
    writeFileSync(join(d, LOCK_FILE_NAME), 'garbage');
    const r = await lockDataDir(d);
    expect(r.ok).toBe(true);
  });

  it('release leaves a lock that is no longer ours alone', async () => {
    const d = dir();
    const r = await lockDataDir(d);
    if (!r.ok) throw new Error('not locked');
    lockAt(d, { pid: process.ppid, url: null, started_at: '' });
    r.lock.release();
    expect(existsSync(join(d, LOCK_FILE_NAME))).toBe(true);
  });
});

import {
  closeSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

// One `partner local start` per data dir: two servers on the same SQLite files would each think
// they own the outbox and the `local` profile. The lock is a file `DIR/server.lock` created with
// O_EXCL and holding the owner's pid and URL. A lock whose pid is no longer running (a server
// killed with -9, a crash, a reboot) is stale and taken over.

export const LOCK_FILE_NAME = 'server.lock';

interface LockInfo {
  pid: number;
  /** null while the server is still starting (the port is not known yet). */
  url: string | null;
  started_at: string;
}

interface DataDirLock {
  readonly file: string;
  /** The pid of a dead server whose lock was taken over, if any. */
  readonly recoveredFrom?: number;
  /** Records the URL once the server listens. */
  setUrl(url: string): void;
  /** Removes the lock if it is still ours. */
  release(): void;
}

type LockResult = { ok: true; lock: DataDirLock } | { ok: false; heldBy: LockInfo };

function parse(text: string): LockInfo | undefined {
  try {
    const v = JSON.parse(text) as Partial<LockInfo>;
    return Number.isInteger(v.pid) && (v.pid as number) > 0 ? (v as LockInfo) : undefined;
  } catch {
    return undefined;
  }
}

function running(pid: number): boolean {
  if (pid === process.pid) return false; // a pid reused by this very process: the lock is old
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * Moves a stale lock out of the way, unless someone replaced it meanwhile (then it is put back).
 * Renaming is atomic, so of two processes breaking the same stale lock only one gets it.
 */
function breakStale(file: string, staleText: string): void {
  const aside = `${file}.${process.pid}.stale`;
  try {
    renameSync(file, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (readText(aside) !== staleText) {
    try {
      linkSync(aside, file);
    } catch {
      // A third process holds it by now; either way it is not ours to remove.
    }
  }
  rmSync(aside, { force: true });
}

export async function lockDataDir(dir: string, now: () => Date = () => new Date()): Promise<LockResult> {
  const file = join(dir, LOCK_FILE_NAME);
  const mine: LockInfo = { pid: process.pid, url: null, started_at: now().toISOString() };
  let recoveredFrom: number | undefined;
  for (let attempt = 0; attempt < 5; attempt++) {
    let fd: number | undefined;
    try {
      fd = openSync(file, 'wx', 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (fd !== undefined) {
      try {
        writeSync(fd, `${JSON.stringify(mine)}\n`);
      } finally {
        closeSync(fd);
      }
      return { ok: true, lock: handle(file, mine, recoveredFrom) };
    }
    const text = readText(file);
    if (text === undefined) continue; // released meanwhile
    const info = parse(text);
    // An unreadable lock may be one being written this instant: give its writer a moment.
    if (!info && attempt < 2) {
      await new Promise((r) => setTimeout(r, 50));
      continue;
    }
    if (info && running(info.pid)) return { ok: false, heldBy: info };
    if (info) recoveredFrom = info.pid;
    breakStale(file, text);
  }
  throw new Error(
    `could not take the lock ${file}; remove it if no \`partner local start\` uses this data dir`,
  );
}

function handle(file: string, mine: LockInfo, recoveredFrom: number | undefined): DataDirLock {
  const ours = () => parse(readText(file) ?? '')?.pid === process.pid;
  return {
    file,
    ...(recoveredFrom !== undefined ? { recoveredFrom } : {}),
    setUrl(url) {
      if (!ours()) return;
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, `${JSON.stringify({ ...mine, url })}\n`, { mode: 0o600 });
      renameSync(tmp, file);
    },
    release() {
      if (ours()) rmSync(file, { force: true });
    },
  };
}

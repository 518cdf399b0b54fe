import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { root } from '../helpers/build.js';
import { tempDir } from '../helpers/temp-dir.js';

export { ensureBuilt } from '../helpers/build.js';

// The built binary as a person's shell runs it: `node bin/partner.js …` in a child process, with
// a private config dir and home, stdin closed or given, bounded in time.

export const bin = join(root, 'bin/partner.js');

export interface BinResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function partnerBin(
  args: string[],
  o: { configDir: string; env?: Record<string, string>; stdin?: string; cwd?: string; timeoutMs?: number },
): Promise<BinResult> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: tempDir('partner-home-'),
    PARTNER_CONFIG_DIR: o.configDir,
    PARTNER_KEYRING: 'off',
    ...o.env,
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env,
      cwd: o.cwd ?? root,
      stdio: [o.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => {
      stdout += d;
    });
    child.stderr!.on('data', (d) => {
      stderr += d;
    });
    if (o.stdin !== undefined) child.stdin!.end(o.stdin);
    const limit = o.timeoutMs ?? 60_000;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`partner ${args.join(' ')} hung (killed after ${limit} ms)\n${stdout}\n${stderr}`));
    }, limit);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

import { spawn } from 'node:child_process';

// `--open`: the page in the user's browser, where there is one. $BROWSER wins (as with git and
// gh), else the platform's opener. A missing opener is said, not an error: the URL is printed.

function browserCommand(
  env: NodeJS.ProcessEnv,
  platform = process.platform,
): { cmd: string; args: string[] } {
  const own = env.BROWSER?.split(':')[0]?.trim();
  if (own) return { cmd: own, args: [] };
  if (platform === 'darwin') return { cmd: 'open', args: [] };
  if (platform === 'win32') return { cmd: 'cmd', args: ['/c', 'start', '""'] };
  return { cmd: 'xdg-open', args: [] };
}

/** Resolves to null once the browser was started, else to why not. */
export function openBrowser(url: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  const { cmd, args } = browserCommand(env);
  return new Promise((resolve) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(cmd, [...args, url], { detached: true, stdio: 'ignore', env });
    } catch (err) {
      resolve(`${cmd}: ${(err as Error).message}`);
      return;
    }
    child.once('error', (err: NodeJS.ErrnoException) =>
      resolve(err.code === 'ENOENT' ? `${cmd} not found` : `${cmd}: ${err.message}`),
    );
    child.once('spawn', () => {
      child.unref();
      resolve(null);
    });
  });
}

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// A real OS keyring for tests, headless: a private D-Bus session bus (dbus-run-session) with
// GNOME Keyring's Secret Service on it, its login keyring created in a temp HOME and unlocked with
// a known password. Nothing of the developer's own keyring is touched: the bus address exists
// only for the processes a test hands it to. Debian/Ubuntu: `apt-get install dbus gnome-keyring`.

export const KEYRING_PASSWORD = 'partner-test-keyring';

export type KeyringSupport = { ok: true } | { ok: false; reason: string };

function onPath(bin: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' }).status === 0;
}

/** Whether a headless Secret Service can be started here, and if not, why. */
export function keyringSupport(): KeyringSupport {
  if (process.platform !== 'linux')
    return { ok: false, reason: 'the headless Secret Service (GNOME Keyring) runs on Linux only' };
  for (const bin of ['dbus-run-session', 'dbus-send', 'gnome-keyring-daemon'])
    if (!onPath(bin))
      return { ok: false, reason: `${bin} is not installed (apt-get install dbus gnome-keyring)` };
  return { ok: true };
}

export interface KeyringSession {
  /** DBUS_SESSION_BUS_ADDRESS of the private bus. */
  address: string;
  close(): Promise<void>;
}

// The daemon runs in the foreground of the session's process group (so one kill ends it all);
// the address is printed only once the Secret Service owns its name on the bus, so nothing can
// D-Bus-activate a second, locked daemon by asking too early.
const SCRIPT = `printf %s "$KEYRING_PASSWORD" | gnome-keyring-daemon --foreground --unlock --components=secrets >/dev/null 2>&1 &
i=0
while [ $i -lt 200 ]; do
  dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q 'boolean true' && break
  sleep 0.05; i=$((i+1))
done
[ $i -lt 200 ] || { echo "gnome-keyring-daemon did not take org.freedesktop.secrets" >&2; exit 1; }
echo "address=$DBUS_SESSION_BUS_ADDRESS"
exec sleep 3600`;

/** Starts the session (bounded: 15 s), or throws saying what went wrong. */
export async function startKeyringSession(): Promise<KeyringSession> {
  const home = mkdtempSync(join(tmpdir(), 'partner-keyring-home-'));
  const child = spawn('dbus-run-session', ['--', 'sh', '-c', SCRIPT], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, KEYRING_PASSWORD },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const kill = () => {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  };
  const deadline = Date.now() + 15_000;
  for (;;) {
    const m = /address=(\S+)/.exec(out);
    if (m) {
      return {
        address: m[1]!,
        async close() {
          const gone = new Promise((r) => child.once('exit', r));
          kill();
          await Promise.race([gone, new Promise((r) => setTimeout(r, 2000))]);
          rmSync(home, { recursive: true, force: true });
        },
      };
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      kill();
      rmSync(home, { recursive: true, force: true });
      throw new Error(`could not start a headless Secret Service: ${err.trim() || 'timed out'}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

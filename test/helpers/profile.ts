import { openProfiles } from '../../src/cli/profiles.js';
import { startTestServer, type TestServer } from './server.js';
import { tempDir } from './temp-dir.js';

// The set-up most CLI tests share: a real server, and a config dir whose default profile `local`
// points at it with a credential.

export interface Credential {
  key: string;
  secret: string;
}

/** Writes profile `local` (the default) for `baseUrl` and `cred` into config dir `dir`; returns `dir`. */
export function writeLocalProfile(dir: string, baseUrl: string, cred: Credential): string {
  openProfiles({ configDir: dir }).save({
    name: 'local',
    base_url: baseUrl,
    key: cred.key,
    secret: cred.secret,
  });
  return dir;
}

/** A fresh config dir (removed after the test file) holding profile `local` for this server and credential. */
export function profileDir(baseUrl: string, cred: Credential, prefix = 'partner-cfg-'): string {
  return writeLocalProfile(tempDir(prefix), baseUrl, cred);
}

/**
 * Starts the test server (seeded with the demo data unless `opts` says otherwise) and makes a
 * config dir whose profile `local` holds its demo credential. The caller closes `s`.
 */
export async function startWithProfile(
  opts: Parameters<typeof startTestServer>[0] = {},
): Promise<{ s: TestServer; configDir: string }> {
  const s = await startTestServer({ seed: 'demo', ...opts });
  return { s, configDir: profileDir(s.baseUrl, s.credential) };
}

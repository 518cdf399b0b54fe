import { formatDuration } from '../../contract/duration.js';
import { isLoopbackHost } from '../../client/loopback.js';
import { exitCodeFor, MAX_RETRY_AFTER_MS } from '../errors.js';
import { plural } from './words.js';

// Errors on stderr: code, message and request_id; details and stacks only with --verbose.
// Plain text (no chalk) so it costs nothing to load; red only when stderr is a colour terminal.

interface ErrorPrintOptions {
  verbose: boolean;
  color: boolean;
  /** Where the partner credential came from (`env`, `profile NAME`), to point at the right fix. */
  credentialSource?: string;
}

const red = (s: string, on: boolean) => (on ? `\u001b[31m${s}\u001b[39m` : s);
const dim = (s: string, on: boolean) => (on ? `\u001b[2m${s}\u001b[22m` : s);

/** Where to fix a credential, by where it came from. */
function credentialHint(code: string, source: string | undefined, message = ''): string | undefined {
  // The operator API says so in its message: its fix is the token, never a partner key.
  if (/\boperator\b/.test(message) && (code === 'auth_invalid_credential' || code === 'auth_missing'))
    return 'the operator token is wrong or missing: check --token / PARTNER_OPERATOR_TOKEN (the token the server was started with), or use --data DIR of a local server';
  const profile = source?.startsWith('profile ') ? source.slice('profile '.length) : undefined;
  if (code === 'auth_invalid_credential') {
    if (source === 'env')
      return 'the key or secret is wrong, or the secret was rotated: check PARTNER_KEY/PARTNER_SECRET (set in the environment, they are used instead of any profile)';
    if (profile)
      return `the key or secret of profile "${profile}" is wrong, or the secret was rotated: update it with \`partner profiles add ${profile} --key KEY --secret -\``;
    return 'the key or secret is wrong, or the secret was rotated';
  }
  if (code === 'auth_missing')
    return source === 'env'
      ? 'check PARTNER_KEY/PARTNER_SECRET'
      : `check the profile (\`partner profiles show${profile ? ` ${profile}` : ''}\`)`;
  if (code === 'auth_revoked')
    return `this credential${source === 'env' ? ' (PARTNER_KEY)' : profile ? ` (profile "${profile}")` : ''} was revoked; ask the operator for a new one`;
  return undefined;
}

/**
 * A refused connection to a loopback address is, nearly always, the local server not running
 * (the `local` profile points there): say how to start it.
 */
export function localServerHint(e: { code?: unknown; origin?: unknown }): string | undefined {
  if (e.code !== 'ECONNREFUSED' || typeof e.origin !== 'string') return undefined;
  let host: string;
  try {
    host = new URL(e.origin).hostname;
  } catch {
    return undefined;
  }
  if (!isLoopbackHost(host)) return undefined;
  return `nothing listens at ${e.origin}: is the local server running? Start it with \`partner local start\` (in a clone of the repository: \`npm start\`)`;
}

/** What the client really did about a 429 (it retries only waits it can sit out). */
function rateLimitHint(e: { attempts?: number; waitedMs?: number; retryAfterMs?: number }): string {
  const retries = (e.attempts ?? 1) - 1;
  const after = e.retryAfterMs;
  const again = after !== undefined ? `wait ${formatDuration(after)}` : 'wait a little';
  if (retries > 0)
    return `still rate limited after ${plural(retries, 'retry', 'retries')} (${formatDuration(e.waitedMs ?? 0)} of waiting); ${again} and run it again, or ask the operator for a higher limit`;
  if (after !== undefined && after > MAX_RETRY_AFTER_MS)
    return `not retried: the server asks to wait ${formatDuration(after)}, longer than the ${formatDuration(MAX_RETRY_AFTER_MS)} the CLI waits by itself; run it again after that`;
  return `not retried; ${again} and run it again`;
}

/** Writes the error and returns the exit code for it. */
export function reportError(err: unknown, out: { write(s: string): unknown }, o: ErrorPrintOptions): number {
  const code = exitCodeFor(err);
  const e = err as {
    name?: string;
    message?: string;
    code?: unknown;
    wireCode?: string;
    request_id?: string;
    details?: unknown;
    stack?: string;
    attempts?: number;
    waitedMs?: number;
    retryAfterMs?: number;
  };
  if (e?.name === 'Exit') return code;
  if (e?.name === 'ExitPromptError') {
    out.write('Cancelled.\n');
    return code;
  }
  const lines: string[] = [];
  switch (e?.name) {
    case 'ApiError': {
      const shown = e.wireCode ?? String(e.code);
      lines.push(`${red('error:', o.color)} ${shown}: ${e.message}`);
      if (e.request_id) lines.push(`request_id: ${e.request_id}`);
      if (o.verbose && e.details !== undefined) lines.push(`details: ${JSON.stringify(e.details, null, 2)}`);
      else if (e.details !== undefined) lines.push(dim('(details with --verbose)', o.color));
      const hint =
        e.code === 'rate_limit_exceeded'
          ? rateLimitHint(e)
          : credentialHint(String(e.code), o.credentialSource, e.message);
      if (hint) lines.push(dim(`hint: ${hint}`, o.color));
      break;
    }
    case 'NetworkError': {
      lines.push(`${red('error:', o.color)} network: ${e.message}`);
      const hint = localServerHint(e as { code?: unknown; origin?: unknown });
      if (hint) lines.push(dim(`hint: ${hint}`, o.color));
      break;
    }
    case 'UsageError':
    case 'ClientConfigError':
    case 'ConfigFileError':
      lines.push(`${red('error:', o.color)} ${e.message}`);
      break;
    default:
      lines.push(`${red('error:', o.color)} ${e?.message ?? String(err)}`);
      if (o.verbose && e?.stack) lines.push(dim(e.stack, o.color));
  }
  // A hint the command attached to the error comes after it, never before.
  const own = (err as { hint?: unknown } | undefined)?.hint;
  if (typeof own === 'string') lines.push(dim(`hint: ${own}`, o.color));
  out.write(`${lines.join('\n')}\n`);
  return code;
}

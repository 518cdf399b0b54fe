// CLI-side failures and the exit-code table (docs/cli.md, "Errors and exit codes").

/** The longest Retry-After the CLI sits out by itself (a person is waiting); longer ones exit 6. */
export const MAX_RETRY_AFTER_MS = 30_000;

/** Bad command-line input: exit 2. The message names the flag or file at fault. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** A failure already reported to the user; carries only the exit code. */
export class Exit extends Error {
  override readonly name = 'Exit';
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

export const EXIT = {
  ok: 0,
  other: 1,
  usage: 2,
  auth: 3,
  notFound: 4,
  conflict: 5,
  rateLimited: 6,
  network: 7,
} as const;

/** Exit code for an HTTP status of an API error. */
export function exitCodeForStatus(status: number): number {
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 404) return EXIT.notFound;
  if (status === 409) return EXIT.conflict;
  if (status === 429) return EXIT.rateLimited;
  if (status >= 500 || status === 0) return EXIT.network;
  return EXIT.other;
}

/** Exit code for anything thrown by a command (matched by name so lazy chunks need not be loaded). */
export function exitCodeFor(err: unknown): number {
  const e = err as { name?: string; status?: number; code?: unknown } | undefined;
  switch (e?.name) {
    case 'Exit':
      return (err as Exit).code;
    case 'UsageError':
    case 'ClientConfigError':
      return EXIT.usage;
    case 'ApiError':
      return exitCodeForStatus(e.status ?? 0);
    case 'NetworkError':
      return EXIT.network;
    case 'ExitPromptError':
      // Ctrl-C at a prompt: a cancellation, like answering "no".
      return EXIT.other;
    default:
      return EXIT.other;
  }
}

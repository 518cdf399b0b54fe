// Apart from the client so the CLI's error printer can tell a local server without loading it.

/** 127.0.0.0/8, ::1 and localhost names: where credentials may go over plain http. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(h) || h === '::1';
}

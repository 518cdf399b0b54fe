import type { Request, RequestStage } from './http-app.js';

// Stage: a partner read goes ahead of its admission. On a shared store the admit (the
// credential's row, the rate take) is a round trip; a read whose credential this instance has
// verified before is sent with it, as that credential, instead of after it. Its answer waits for
// the admit, and is used only if the admit found the same verification standing: a revoke,
// rotation or scope change read by the admit fails the request (or runs the read again as the
// credential now is), a refused take answers 429, and whatever the read found is dropped.

export function readAhead(read: (req: Request) => Promise<unknown>): RequestStage {
  return (req) => {
    const ahead = req.ahead;
    if (!ahead) return;
    req.credential = ahead.cred;
    const early = read(req);
    // Dropped when the admit fails: its own failure must not go unhandled then.
    early.catch(() => undefined);
    return ahead.admitted.then(({ cred, rate }) => {
      req.credential = cred;
      req.rate = rate;
      if (cred === ahead.cred) ahead.read = early;
    });
  };
}

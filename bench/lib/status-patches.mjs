// What the PATCH /orders/status suites (SQLite and PostgreSQL) share: the template order the
// clones are made from, and the requests of the partner and of the floor.
import { basic } from './server.mjs';

const TARGETS = ['ACCEPTED', 'READY', 'DELIVERED'];

/** A PLACED order made through the operator API, as the clones' template. */
export async function templateOrder(baseUrl, operatorToken, credential) {
  const branches = await (
    await fetch(`${baseUrl}/v1/partner/branches`, { headers: { authorization: basic(credential) } })
  ).json();
  const br = branches.data.results[0];
  const r = await fetch(`${baseUrl}/v1/operator/orders`, {
    method: 'POST',
    headers: { authorization: `Bearer ${operatorToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      business_id: credential.business_id,
      brand_id: br.brand_ids[0],
      branch_id: br.id,
      items: 3,
    }),
  });
  if (r.status !== 201) throw new Error(`template order: ${r.status} ${await r.text()}`);
  return (await r.json()).data;
}

/** One autocannon request whose headers and body come from `build(i)`, i = 0, 1, 2, … per request. */
function numbered(method, path, build) {
  let k = 0;
  return [{ method, path, setupRequest: (req) => ({ ...req, ...build(k++) }) }];
}

/**
 * Real transitions with a unique Idempotency-Key each: request k patches order `first + k mod
 * batch`, to ACCEPTED, then READY, then DELIVERED (one pass of the batch per target).
 */
export function patchRequests(credential, first, prefix, batch) {
  const authorization = basic(credential);
  return numbered('PATCH', '/v1/partner/orders/status', (i) => ({
    headers: { authorization, 'content-type': 'application/json', 'idempotency-key': `${prefix}-${i}` },
    body: JSON.stringify({
      id: first + (i % batch),
      status: TARGETS[Math.floor(i / batch)] ?? 'DELIVERED',
      platform: 'enterprise',
    }),
  }));
}

/** The floor's requests: the same body shape and a unique key, answered by one INSERT. */
export function floorRequests(prefix) {
  return numbered('PATCH', '/', (i) => ({
    headers: { 'content-type': 'application/json', 'idempotency-key': `${prefix}-${i}` },
    body: JSON.stringify({ id: i, status: 'ACCEPTED', platform: 'enterprise' }),
  }));
}

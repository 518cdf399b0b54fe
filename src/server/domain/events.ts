// Event ids and delivery bodies: what a receiver sees of an outbox event (docs/webhooks.md).
import { randomFillSync } from 'node:crypto';

/**
 * `evt_<seq in base 36>_<16 random characters>`: unique because seq is, unguessable and never
 * repeated after a data directory is wiped (receivers de-duplicate on it), and resolvable to its
 * row without an index on the text.
 */
export function eventIdFor(seq: number): string {
  return `evt_${seq.toString(36)}_${random12().toString('base64url')}`;
}

// One draw from the CSPRNG per 256 ids instead of one per id (a system call each, on the write path).
const POOL = Buffer.alloc(12 * 256);
let used = POOL.length;
function random12(): Buffer {
  if (used === POOL.length) {
    randomFillSync(POOL);
    used = 0;
  }
  used += 12;
  return POOL.subarray(used - 12, used);
}

/** The seq an event id was minted for, or undefined when it is not one of ours. */
export function seqOfEventId(id: string): number | undefined {
  const m = /^evt_([0-9a-z]{1,11})_[\w-]{16}$/.exec(id);
  return m ? Number.parseInt(m[1]!, 36) : undefined;
}

/** `{brand_id, branch_id, orders:[…]}` built around already-serialised order records. */
export function eventPayload(brandId: number, branchId: number, orders: readonly string[]): string {
  return `{"brand_id":${brandId},"branch_id":${branchId},"orders":[${orders.join(',')}]}`;
}

const ORDERS = '"orders":[';

/**
 * The orders of an event payload as the text between `"orders":[` and the closing `]}` (for an
 * event of one order: that order's bytes exactly, as eventPayload wrote them); undefined when the
 * text is not of that form.
 */
export function ordersTextOf(payload: string): string | undefined {
  const at = payload.indexOf(ORDERS);
  return at < 0 || !payload.endsWith(']}') ? undefined : payload.slice(at + ORDERS.length, -2);
}

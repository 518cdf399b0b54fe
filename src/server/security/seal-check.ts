import type { Store } from '../store/store.js';
import { ConfigError } from '../config.js';
import type { Sealer } from './sealed.js';

// Businesses looked at for a stored secret at start: enough to find one in any real store
// (nearly every business that gets webhooks has one), few enough to keep a start quick.
const LOOK_AT = 200;

/**
 * Refuses a seal key that does not open the webhook signing secrets already stored: an instance
 * given another key than the rest would fail every delivery it signs, and a secret it sealed
 * would be lost to the others. Found at start, before the instance takes any request.
 */
export async function checkSealKey(store: Store, sealer: Sealer, where: string): Promise<void> {
  const sealed = await store.read(async (tx) => {
    const businesses = await tx.businesses.list();
    for (const b of businesses.slice(0, LOOK_AT)) {
      const s = await tx.webhookSecrets.get(b.id);
      if (s) return s.sealed;
    }
    return undefined;
  });
  if (sealed === undefined) return;
  try {
    sealer.open(sealed);
  } catch {
    throw new ConfigError(
      `${where} does not open the webhook signing secrets stored in this database: give every instance the key they were sealed with`,
    );
  }
}

import { newToken } from '../security/secrets.js';
import type { Sealer } from '../security/sealed.js';
import { sql } from '../store/sqlite/statements.js';
import type { Db } from '../store/sqlite/db.js';

/** The business's webhook_secret_key, created on first use (sealed at rest). */
export function webhookSecret(db: Db, sealer: Sealer, businessId: number, now: number): string {
  const row = sql(db, 'SELECT secret_sealed FROM webhook_secrets WHERE business_id = ?').get(businessId) as
    | { secret_sealed: string }
    | undefined;
  if (row) return sealer.open(row.secret_sealed);
  const secret = newToken('whsec_', 24);
  sql(db, 'INSERT INTO webhook_secrets (business_id, secret_sealed, created_at) VALUES (?, ?, ?)').run(
    businessId,
    sealer.seal(secret),
    new Date(now).toISOString(),
  );
  return secret;
}

/** Issues a new secret; deliveries from now on are signed with it. */
export function rotateWebhookSecret(db: Db, sealer: Sealer, businessId: number, now: number): string {
  const secret = newToken('whsec_', 24);
  const at = new Date(now).toISOString();
  sql(
    db,
    `INSERT INTO webhook_secrets (business_id, secret_sealed, rotated_at, created_at) VALUES (?, ?, ?, ?)
     ON CONFLICT(business_id) DO UPDATE SET secret_sealed = excluded.secret_sealed, rotated_at = excluded.rotated_at`,
  ).run(businessId, sealer.seal(secret), at, at);
  return secret;
}

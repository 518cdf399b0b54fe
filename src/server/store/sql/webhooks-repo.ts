import type { SealedSecret, WebhookRow, WebhookTuple } from '../webhooks-repo.js';
import { iso, q, type Sql } from './query.js';

const COLUMNS = 'id, business_id, brand_id, branch_id, event, url, created_at';

const W = {
  all: q(`SELECT ${COLUMNS} FROM webhooks WHERE deleted_at IS NULL ORDER BY id`),
  ofBusiness: q(`SELECT ${COLUMNS} FROM webhooks WHERE business_id = ? AND deleted_at IS NULL ORDER BY id`),
  find: q(
    `SELECT ${COLUMNS} FROM webhooks WHERE business_id = ? AND coalesce(brand_id, 0) = ? AND coalesce(branch_id, 0) = ?
     AND event = ? AND url = ? AND deleted_at IS NULL`,
  ),
  insert: q(
    `INSERT INTO webhooks (business_id, brand_id, branch_id, event, url, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
  ),
  remove: q('UPDATE webhooks SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL'),
  secret: q('SELECT secret_sealed AS sealed, rotated_at FROM webhook_secrets WHERE business_id = ?'),
  createSecret: q(
    `INSERT INTO webhook_secrets (business_id, secret_sealed, created_at) VALUES (?, ?, ?)
     ON CONFLICT (business_id) DO NOTHING`,
  ),
  rotateSecret: q(
    `INSERT INTO webhook_secrets (business_id, secret_sealed, rotated_at, created_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (business_id) DO UPDATE SET secret_sealed = excluded.secret_sealed, rotated_at = excluded.rotated_at
     RETURNING secret_sealed AS sealed, rotated_at`,
  ),
};

export class SqlWebhooks {
  constructor(private readonly db: Sql) {}

  /** Live registrations by id, of one business or all. */
  list(businessId?: number): Promise<WebhookRow[]> {
    return businessId === undefined ? this.db.all(W.all) : this.db.all(W.ofBusiness, [businessId]);
  }

  /** The live registration of exactly this tuple. */
  find(w: WebhookTuple): Promise<WebhookRow | undefined> {
    return this.db.get(W.find, [w.business_id, w.brand_id ?? 0, w.branch_id ?? 0, w.event, w.url]);
  }

  async insert(w: WebhookTuple, now: number): Promise<WebhookRow> {
    const [r] = await this.db.write<WebhookRow>(W.insert, [
      w.business_id,
      w.brand_id,
      w.branch_id,
      w.event,
      w.url,
      iso(now),
    ]);
    return r!;
  }

  /** Soft delete; false when there was no live registration of that id. */
  async remove(id: number, now: number): Promise<boolean> {
    return (await this.db.run(W.remove, [iso(now), id])) > 0;
  }
}

export class SqlTenantWebhooks {
  constructor(
    private readonly db: Sql,
    private readonly businessId: number,
  ) {}

  list(): Promise<WebhookRow[]> {
    return this.db.all(W.ofBusiness, [this.businessId]);
  }
}

export class SqlWebhookSecrets {
  constructor(private readonly db: Sql) {}

  get(businessId: number): Promise<SealedSecret | undefined> {
    return this.db.get(W.secret, [businessId]);
  }

  /** Keeps an existing secret (another unit made one first); returns what is stored. */
  async create(businessId: number, sealed: string, now: number): Promise<SealedSecret> {
    await this.db.run(W.createSecret, [businessId, sealed, iso(now)]);
    return (await this.get(businessId))!;
  }

  async rotate(businessId: number, sealed: string, now: number): Promise<SealedSecret> {
    const at = iso(now);
    const [r] = await this.db.write<SealedSecret>(W.rotateSecret, [businessId, sealed, at, at]);
    return r!;
  }
}

import type {
  SealedSecret,
  TenantWebhooks,
  WebhookRow,
  WebhookSecretsRepo,
  WebhooksRepo,
  WebhookTuple,
} from '../webhooks-repo.js';
import type { PgTx } from './tx.js';

const iso = (ms: number) => new Date(ms).toISOString();
const COLUMNS = 'id, business_id, brand_id, branch_id, event, url, created_at';

export class PgWebhooks implements WebhooksRepo {
  constructor(private readonly tx: PgTx) {}

  list(businessId?: number): Promise<WebhookRow[]> {
    return businessId === undefined
      ? this.tx.rows(`SELECT ${COLUMNS} FROM webhooks WHERE deleted_at IS NULL ORDER BY id`)
      : this.tx.rows(
          `SELECT ${COLUMNS} FROM webhooks WHERE business_id = $1 AND deleted_at IS NULL ORDER BY id`,
          [businessId],
        );
  }

  find(w: WebhookTuple): Promise<WebhookRow | undefined> {
    return this.tx.row(
      `SELECT ${COLUMNS} FROM webhooks WHERE business_id = $1 AND coalesce(brand_id, 0) = $2 AND coalesce(branch_id, 0) = $3
       AND event = $4 AND url = $5 AND deleted_at IS NULL`,
      [w.business_id, w.brand_id ?? 0, w.branch_id ?? 0, w.event, w.url],
    );
  }

  async insert(w: WebhookTuple, now: number): Promise<WebhookRow> {
    const [row] = await this.tx.change<WebhookRow>(
      `INSERT INTO webhooks (business_id, brand_id, branch_id, event, url, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
      [w.business_id, w.brand_id, w.branch_id, w.event, w.url, iso(now)],
    );
    return row!;
  }

  async remove(id: number, now: number): Promise<boolean> {
    return (
      (await this.tx.exec('UPDATE webhooks SET deleted_at = $1 WHERE id = $2 AND deleted_at IS NULL', [
        iso(now),
        id,
      ])) > 0
    );
  }
}

export class PgTenantWebhooks implements TenantWebhooks {
  constructor(
    private readonly tx: PgTx,
    private readonly businessId: number,
  ) {}

  list(): Promise<WebhookRow[]> {
    return new PgWebhooks(this.tx).list(this.businessId);
  }
}

export class PgWebhookSecrets implements WebhookSecretsRepo {
  constructor(private readonly tx: PgTx) {}

  get(businessId: number): Promise<SealedSecret | undefined> {
    return this.tx.row(
      'SELECT secret_sealed AS sealed, rotated_at FROM webhook_secrets WHERE business_id = $1',
      [businessId],
    );
  }

  async create(businessId: number, sealed: string, now: number): Promise<SealedSecret> {
    await this.tx.exec(
      'INSERT INTO webhook_secrets (business_id, secret_sealed, created_at) VALUES ($1, $2, $3) ON CONFLICT (business_id) DO NOTHING',
      [businessId, sealed, iso(now)],
    );
    return (await this.get(businessId))!;
  }

  async rotate(businessId: number, sealed: string, now: number): Promise<SealedSecret> {
    const at = iso(now);
    const [row] = await this.tx.change<SealedSecret>(
      `INSERT INTO webhook_secrets (business_id, secret_sealed, rotated_at, created_at) VALUES ($1, $2, $3, $3)
       ON CONFLICT (business_id) DO UPDATE SET secret_sealed = excluded.secret_sealed, rotated_at = excluded.rotated_at
       RETURNING secret_sealed AS sealed, rotated_at`,
      [businessId, sealed, at],
    );
    return row!;
  }
}

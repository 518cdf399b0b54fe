import type {
  SealedSecret,
  TenantWebhooks,
  WebhookRow,
  WebhookSecretsRepo,
  WebhooksRepo,
  WebhookTuple,
} from '../webhooks-repo.js';
import type { SqliteTx } from './tx.js';

const iso = (ms: number) => new Date(ms).toISOString();
const COLUMNS = 'id, business_id, brand_id, branch_id, event, url, created_at';

export class SqliteWebhooks implements WebhooksRepo {
  constructor(private readonly tx: SqliteTx) {}

  async list(businessId?: number): Promise<WebhookRow[]> {
    return (
      businessId === undefined
        ? this.tx.select(`SELECT ${COLUMNS} FROM webhooks WHERE deleted_at IS NULL ORDER BY id`).all()
        : this.tx
            .select(
              `SELECT ${COLUMNS} FROM webhooks WHERE business_id = ? AND deleted_at IS NULL ORDER BY id`,
            )
            .all(businessId)
    ) as WebhookRow[];
  }

  async find(w: WebhookTuple): Promise<WebhookRow | undefined> {
    return this.tx
      .select(
        `SELECT ${COLUMNS} FROM webhooks WHERE business_id = ? AND coalesce(brand_id, 0) = ? AND coalesce(branch_id, 0) = ? AND event = ? AND url = ? AND deleted_at IS NULL`,
      )
      .get(w.business_id, w.brand_id ?? 0, w.branch_id ?? 0, w.event, w.url) as WebhookRow | undefined;
  }

  async insert(w: WebhookTuple, now: number): Promise<WebhookRow> {
    return this.tx
      .change(
        `INSERT INTO webhooks (business_id, brand_id, branch_id, event, url, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
      )
      .get(w.business_id, w.brand_id, w.branch_id, w.event, w.url, iso(now)) as WebhookRow;
  }

  async remove(id: number, now: number): Promise<boolean> {
    return (
      this.tx
        .change('UPDATE webhooks SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL')
        .run(iso(now), id).changes > 0
    );
  }
}

export class SqliteTenantWebhooks implements TenantWebhooks {
  constructor(
    private readonly tx: SqliteTx,
    private readonly businessId: number,
  ) {}

  list(): Promise<WebhookRow[]> {
    return new SqliteWebhooks(this.tx).list(this.businessId);
  }
}

export class SqliteWebhookSecrets implements WebhookSecretsRepo {
  constructor(private readonly tx: SqliteTx) {}

  async get(businessId: number): Promise<SealedSecret | undefined> {
    return this.tx
      .select('SELECT secret_sealed AS sealed, rotated_at FROM webhook_secrets WHERE business_id = ?')
      .get(businessId) as SealedSecret | undefined;
  }

  async create(businessId: number, sealed: string, now: number): Promise<SealedSecret> {
    this.tx
      .change(
        'INSERT INTO webhook_secrets (business_id, secret_sealed, created_at) VALUES (?, ?, ?) ON CONFLICT (business_id) DO NOTHING',
      )
      .run(businessId, sealed, iso(now));
    return (await this.get(businessId))!;
  }

  async rotate(businessId: number, sealed: string, now: number): Promise<SealedSecret> {
    const at = iso(now);
    this.tx
      .change(
        `INSERT INTO webhook_secrets (business_id, secret_sealed, rotated_at, created_at) VALUES (?, ?, ?, ?)
         ON CONFLICT(business_id) DO UPDATE SET secret_sealed = excluded.secret_sealed, rotated_at = excluded.rotated_at`,
      )
      .run(businessId, sealed, at, at);
    return (await this.get(businessId))!;
  }
}

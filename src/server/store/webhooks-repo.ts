// Webhook registrations (one URL per business, brand, branch and event type) and the per-business
// signing secrets, sealed at rest.

export type WebhookEventName =
  | 'all'
  | 'service.order.created.v2'
  | 'service.order.status.updated'
  | 'service.order.cart.updated';

export interface WebhookRow {
  id: number;
  business_id: number;
  /** null: every brand (branch) of the business. */
  brand_id: number | null;
  branch_id: number | null;
  event: WebhookEventName;
  url: string;
  created_at: string;
}

export type WebhookTuple = Omit<WebhookRow, 'id' | 'created_at'>;

/** Every business's registrations (Tx.webhooks): the operator and the dispatcher. */
export interface WebhooksRepo {
  /** Live registrations by id, of one business or all. */
  list(businessId?: number): Promise<WebhookRow[]>;
  /** The live registration of exactly this tuple. */
  find(w: WebhookTuple): Promise<WebhookRow | undefined>;
  insert(w: WebhookTuple, now: number): Promise<WebhookRow>;
  /** Soft delete; false when there was no live registration of that id. */
  remove(id: number, now: number): Promise<boolean>;
}

/** One business's registrations (TenantTx.webhooks): `GET /webhooks`. */
export interface TenantWebhooks {
  list(): Promise<WebhookRow[]>;
}

export interface SealedSecret {
  /** security/sealed.ts: AES-256-GCM under the key every instance is given. */
  sealed: string;
  rotated_at: string | null;
}

export interface WebhookSecretsRepo {
  get(businessId: number): Promise<SealedSecret | undefined>;
  /** Keeps an existing secret (another unit made one first); returns what is stored. */
  create(businessId: number, sealed: string, now: number): Promise<SealedSecret>;
  rotate(businessId: number, sealed: string, now: number): Promise<SealedSecret>;
}

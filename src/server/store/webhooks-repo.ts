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

export interface SealedSecret {
  /** security/sealed.ts: AES-256-GCM under the key every instance is given. */
  sealed: string;
  rotated_at: string | null;
}

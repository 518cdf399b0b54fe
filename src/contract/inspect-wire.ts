import type { z } from 'zod';
import type { LoggedRequest, LoggedRequestDetail } from './schemas/operator.js';

// What the inspect server (in the CLI process) and its page (src/inspect-ui) exchange: here, in
// the layer both may use, so the page imports nothing of the CLI. Types only: the page's bundle
// imports this file too, so it must not import anything of Node. The request log's shapes are the
// contract's schemas (z.infer), not copies.

/** What this inspect run can show; a source it could not reach carries the reason instead. */
export interface InspectInfo {
  version: string;
  /** The command that serves the page. */
  mode: 'inspect' | 'listen' | 'local';
  /** Rows held at most per list; older ones are dropped first. */
  max_rows: number;
  listen: { url: string; forward_to: string | null } | null;
  /** The local server whose deliveries and request log are shown (operator API); error: why not, or its last failure. */
  local: { base_url: string | null; error: string | null } | null;
  /** Why the local server's request log cannot be read, when it cannot. */
  requests_error: string | null;
  /** The partner credential the menu preview reads with (its key only: never a secret). */
  menu: { base_url: string | null; key: string | null; error: string | null } | null;
}

/** listen: checked against the webhook secret; local: what the server sends, signed or not. */
type Verdict = 'verified' | 'invalid' | 'signed' | 'unsigned';

/** One row of the Webhooks list: a receipt of `listen`, or a delivery of the local server. */
export interface WebhookRow {
  /** `l<n>` for a receipt, `d<delivery id>` for a delivery. */
  key: string;
  source: 'listen' | 'local';
  /** Order of arrival in this run (newest first in the list). */
  seq: number;
  /** Grows with every change of any row: of two copies of a row, the higher rev is newer. */
  rev: number;
  /** Received (listen) or created (local). */
  at: string;
  event_id: string | null;
  event_type: string;
  brand_id: number | null;
  branch_id: number | null;
  order_ids: number[];
  verdict: Verdict;
  duplicate: boolean;
  stale: boolean;
  /** listen: received | rejected; local: pending | delivered | failed. */
  status: 'received' | 'rejected' | 'pending' | 'delivered' | 'failed';
  /** x-partner-delivery-attempt (listen), attempts made (local). */
  attempt: number;
  /** The receiver a delivery goes to (local). */
  url: string | null;
}

export interface AttemptLog {
  attempt: number;
  at: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
}

export interface ResendLog {
  at: string;
  url: string;
  status: number | null;
  duration_ms: number;
  error: string | null;
}

export interface WebhookDetail extends WebhookRow {
  /** Header names in lower case; credentials and cookies masked. */
  headers: Record<string, string>;
  /** The body as received or sent, as text. */
  body: string;
  /** Why listen answered 401. */
  reason: string | null;
  attempts: AttemptLog[];
  next_attempt_at: string | null;
  batched_event_ids: string[];
  /** Re-sends of a receipt made from the page. */
  resends: ResendLog[];
  can_replay: boolean;
  can_resend: boolean;
  /** The URL resend offers first (listen's --forward-to). */
  resend_default: string | null;
}

/** One request of the local server's request log (the operator API's list entry). */
export type RequestRow = z.infer<typeof LoggedRequest> & {
  /** A read partner inspect itself made (hidden unless asked for). */
  own: boolean;
};

export type RequestDetail = z.infer<typeof LoggedRequestDetail>;

export interface MenuTargets {
  brands: { id: number; title: string; branches: { id: number; title: string; currency_code: string }[] }[];
  providers: { id: number; title: string }[];
}

interface SnapshotModifier {
  id: number;
  title: string;
  partner_item_id: string;
  prices: Record<string, string>;
  isAvailable: boolean;
}

export interface SnapshotItem {
  id: number;
  title: string;
  partner_item_id: string;
  prices: Record<string, string>;
  groupPrices: Record<string, string>;
  visibilities: Record<string, boolean>;
  enabled: boolean;
  isAvailable: boolean;
  stock: number | null;
  snoozed_until: string | null;
  modifierGroups: { id: number; title: string; min: number; max: number; modifiers: SnapshotModifier[] }[];
}

export interface MenuSnapshot {
  brand_id: number;
  branch_id: number;
  version: number;
  published_at: string;
  sections: {
    id: number;
    title: string;
    isEnabled: boolean;
    visibilities: Record<string, boolean>;
    blackoutDates: string[];
    categories: { id: number; title: string; items: SnapshotItem[] }[];
  }[];
}

/** What changed since the previous publish, by entity: `new`, or the names of changed fields. */
export interface MenuChanges {
  sections: Record<string, 'new' | string[]>;
  categories: Record<string, 'new' | string[]>;
  items: Record<string, 'new' | string[]>;
  /** Titles of what the previous publish had and this one has not. */
  removed: { kind: 'section' | 'category' | 'item'; title: string }[];
}

export interface MenuView {
  brand_id: number;
  branch_id: number;
  /** null before the first publish of this brand at this branch. */
  snapshot: MenuSnapshot | null;
  /** The version compared against; null when no earlier publish was seen (see docs/inspect.md). */
  previous_version: number | null;
  changes: MenuChanges | null;
  fetched_at: string;
}

/** Answer of a replay or resend. */
export interface ActionResult {
  ok: boolean;
  message: string;
}

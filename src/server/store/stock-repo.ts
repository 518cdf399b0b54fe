// Operational state of the store layer: item availability, snooze and stock per branch, and the
// OOS activity history of every change.

export type EntityType = 'section' | 'category' | 'item';
type OosAction = 'availability' | 'snooze' | 'enable' | 'stock';

export interface NewActivity {
  brand_id: number;
  branch_id: number | null;
  entity_type: EntityType;
  entity_id: number;
  partner_item_id: string | null;
  title: string;
  action: OosAction;
  before: Record<string, unknown>;
  after: Record<string, unknown>;
  until: string | null;
  went_out: boolean;
  came_back: boolean;
  actor: string;
  at_ms: number;
}

export interface ActivityRow extends Omit<NewActivity, 'went_out' | 'came_back'> {
  id: number;
}

export interface ActivitySummary {
  branch_id: number | null;
  brand_id: number;
  entity_type: EntityType;
  entity_id: number;
  partner_item_id: string | null;
  /** Title, action and time of the latest change. */
  title: string;
  last_action: OosAction;
  last_at_ms: number;
  changes: number;
  went_out: number;
  came_back: number;
}

export interface ActivityFilter {
  fromMs: number;
  toMs: number;
  branchId?: number | undefined;
  brandId?: number | undefined;
}

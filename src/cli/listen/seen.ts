/** A bounded set of recently seen ids: the oldest is forgotten first (insertion order of a Map). */
export class RecentIds {
  private readonly ids = new Map<string, true>();
  constructor(private readonly max = 10_000) {}

  /** Records `id`; true when it was already there (a repeat delivery). */
  seen(id: string): boolean {
    if (this.ids.has(id)) {
      this.ids.delete(id);
      this.ids.set(id, true);
      return true;
    }
    this.ids.set(id, true);
    if (this.ids.size > this.max) this.ids.delete(this.ids.keys().next().value!);
    return false;
  }

  get size(): number {
    return this.ids.size;
  }
}

interface OrderLike {
  id?: unknown;
  updated_at?: unknown;
  cart?: unknown;
}

/**
 * What the receiver remembers per order: the newest `updated_at` seen (delivery order is not
 * guaranteed, spec §6.5 rule 5) and the last cart, to show cart changes as a diff. Bounded.
 */
export class OrderMemory {
  private readonly orders = new Map<number, { updatedAt: number; cart?: unknown }>();
  constructor(private readonly max = 10_000) {}

  /** True when this order state is older than one already seen (a stale event). Records it otherwise. */
  stale(order: OrderLike): boolean {
    const id = Number(order.id);
    const at = Date.parse(String(order.updated_at));
    if (!Number.isFinite(id) || Number.isNaN(at)) return false;
    const prev = this.orders.get(id);
    if (prev && at < prev.updatedAt) return true;
    this.remember(id, { updatedAt: at, cart: order.cart ?? prev?.cart });
    return false;
  }

  /** The cart remembered for an order before this event, then remembers the new one. */
  swapCart(order: OrderLike): unknown {
    const id = Number(order.id);
    const prev = this.orders.get(id);
    const at = Date.parse(String(order.updated_at));
    this.remember(id, { updatedAt: Number.isNaN(at) ? (prev?.updatedAt ?? 0) : at, cart: order.cart });
    return prev?.cart;
  }

  private remember(id: number, v: { updatedAt: number; cart?: unknown }): void {
    this.orders.delete(id);
    this.orders.set(id, v);
    if (this.orders.size > this.max) this.orders.delete(this.orders.keys().next().value!);
  }
}

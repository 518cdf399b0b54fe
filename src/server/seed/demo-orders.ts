// Demo orders for `--seed demo`: a realistic recent history at every branch of both demo
// businesses, all created within the last 24 h so `GET /orders` with its default window shows
// them. They are seeded as pre-existing history, so no outbox events are written for them.
import type { StatusCode } from '../../contract/order-statuses.js';
import { priceCart, seededRng } from '../domain/orders.js';
import { simulateCustomer, simulateOrderType, simulateProvider } from '../domain/order-simulation.js';
import {
  type Actor,
  branchFacts,
  generatedLines,
  type HistoryEntry,
  insertOrder,
} from '../services/orders.js';
import type { Services } from '../handlers/context.js';
import type { SeededBusiness } from './demo.js';

const MIN = 60_000;

interface Scenario {
  /** Minutes before the seed time the order reached the restaurant. */
  ageMin: number;
  /** Later steps: [status, minutes after creation, by]. */
  steps: [StatusCode, number, Actor][];
  comment?: string;
  cancellationReason?: string;
}

// Oldest last; every business cycles through these over its (brand, branch) pairs.
const SCENARIOS: readonly Scenario[] = [
  { ageMin: 2, steps: [] },
  { ageMin: 1, steps: [['PENDING', 0, 'system']] },
  { ageMin: 14, steps: [['ACCEPTED', 1, 'partner']], comment: 'Regular customer: extra napkins' },
  {
    ageMin: 38,
    steps: [
      ['ACCEPTED', 2, 'partner'],
      ['DRIVER ASSIGNED', 6, 'system'],
      ['READY', 17, 'partner'],
    ],
  },
  {
    ageMin: 55,
    steps: [
      ['ACCEPTED', 1, 'partner'],
      ['READY', 15, 'partner'],
      ['DRIVER ASSIGNED', 16, 'system'],
      ['DRIVER ARRIVED', 22, 'system'],
      ['PICKED UP', 24, 'system'],
    ],
  },
  { ageMin: 95, steps: [['SCHEDULED', 0, 'system']], comment: 'Scheduled for this evening' },
  {
    ageMin: 180,
    steps: [
      ['ACCEPTED', 2, 'partner'],
      ['READY', 18, 'partner'],
      ['DELIVERED', 41, 'partner'],
    ],
  },
  {
    ageMin: 310,
    steps: [['CANCELLED', 4, 'partner']],
    cancellationReason: 'Item out of stock; customer declined a substitute',
  },
  { ageMin: 460, steps: [['VOID', 9, 'operator']], comment: 'Duplicate order sent by the marketplace' },
  {
    ageMin: 1150,
    steps: [
      ['ACCEPTED', 1, 'partner'],
      ['READY', 12, 'partner'],
      ['DELIVERED', 30, 'partner'],
    ],
  },
];

/** How many demo orders each business gets (at least one per branch). */
const ORDERS_PER_BUSINESS = [10, 8];

export async function seedDemoOrders(services: Services, businesses: SeededBusiness[]): Promise<void> {
  const now = services.now();
  await services.store.write(async (tx) => {
    for (const [b, biz] of businesses.entries()) {
      const t = tx.tenant(biz.id);
      const rng = seededRng(4242 + b);
      const pairs = biz.branches.flatMap((br) =>
        br.brand_ids.map((brandId) => ({ branchId: br.id, brandId })),
      );
      const count = Math.max(ORDERS_PER_BUSINESS[b] ?? 6, biz.branches.length);
      for (let i = 0; i < count; i++) {
        const s = SCENARIOS[i % SCENARIOS.length]!;
        const { branchId, brandId } = pairs[i % pairs.length]!;
        const branch = await branchFacts(t, branchId);
        if (!branch) continue;
        const provider = simulateProvider(branch.countryCode, rng);
        const priced = priceCart(
          await generatedLines(t, brandId, branch, provider.id, rng, 2 + (i % 3)),
          branch.decimals,
        );
        if ('issues' in priced) throw new Error(`demo cart does not price: ${JSON.stringify(priced.issues)}`);
        // Distinct creation times (seconds apart) so the newest-first order is well defined.
        const createdMs = now - s.ageMin * MIN - (i % 7) * 1000 - b * 500;
        const history: HistoryEntry[] = [
          { status: 'PLACED', atMs: createdMs, by: 'system' },
          ...s.steps.map(
            ([status, after, by]): HistoryEntry => ({ status, atMs: createdMs + after * MIN + 1, by }),
          ),
        ];
        await insertOrder(t, {
          brandId,
          branchId,
          currency: branch.currency,
          cart: priced,
          customer: simulateCustomer(branch.countryCode, rng),
          orderTypeId: simulateOrderType(provider, rng),
          providerId: provider.id,
          placedMs: createdMs - (5 + Math.floor(rng() * 20)) * 1000,
          createdMs,
          comment: s.comment ?? null,
          cancellationReason: s.cancellationReason ?? null,
          history,
        });
      }
    }
  });
}

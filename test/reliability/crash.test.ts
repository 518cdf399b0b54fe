import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { startRecorder } from '../helpers/receiver.js';
import { createTestDatabase, type TestDatabase, testBackend } from '../helpers/pg-databases.js';
import { basic, type Envelope } from '../helpers/server.js';
import { type ChildServer, spawnServer } from '../helpers/spawn-server.js';
import { FULL, mode, rng, SEED, scale } from './config.js';

// Suite 3, crash: write load (status patches, menu writes, availability, brand edits) against the
// server in a child process, kill -9 at a random moment, restart on the same data dir (and, on
// PostgreSQL, the same database). Every write answered 2xx is there, a SQLite file passes PRAGMA
// integrity_check, and every acknowledged order change's event is delivered, under one event id
// per change.

// biome-ignore lint/suspicious/noExplicitAny: payloads of every shape
type Any = any;

const ROUNDS = scale(3, 10);
const ORDER_WORKERS = 4;
const dataDir = mkdtempSync(join(tmpdir(), 'partner-crash-suite-'));
let database: TestDatabase | undefined;
afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  await database?.drop();
});

let srv: ChildServer;
let cred: { key: string; secret: string; businessId: number };

async function api(
  method: string,
  path: string,
  body?: unknown,
  key?: string,
): Promise<{ status: number; body: Envelope }> {
  const r = await fetch(srv.baseUrl + path, {
    method,
    headers: {
      authorization: basic(cred),
      ...(method !== 'GET'
        ? { 'idempotency-key': key ?? `crash-${Math.random().toString(36).slice(2)}` }
        : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: r.status, body: (await r.json()) as Envelope };
}
async function op(method: string, path: string, body?: unknown) {
  const r = await fetch(srv.baseUrl + path, {
    method,
    headers: {
      authorization: `Bearer ${srv.operatorToken}`,
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: r.status, body: (await r.json()) as Envelope };
}

interface Acked {
  orderChanges: { orderId: number; status: number; updated_at: string }[];
  sections: string[];
  /** Sequential writers: the last value acknowledged and the one in flight at the kill. */
  brandTitle: { acked?: string; inFlight?: string };
  available: { acked?: boolean; inFlight?: boolean };
}

it(
  `kill -9 under write load, ${ROUNDS} rounds: nothing acknowledged is lost (${mode()})`,
  async () => {
    const rec = await startRecorder();
    const random = rng(SEED);
    const figures: string[] = [];
    if (testBackend() === 'postgres') database = await createTestDatabase();
    const where = { dataDir, ...(database ? { database: database.url } : {}) };
    try {
      srv = await spawnServer({ ...where, seed: 'demo', retrySchedule: [100, 200, 400, 800] });
      cred = srv.credential!;
      await op('PUT', `/v1/operator/credentials/${cred.key}/rate-limit`, { rate_limit: 1_000_000 });
      await op('POST', '/v1/operator/webhooks', {
        business_id: cred.businessId,
        url: rec.url,
        event: 'service.order.status.updated',
      });
      const branch = (await api('GET', '/v1/partner/branches?size=1')).body.data.results[0];
      const allChanges: Acked['orderChanges'] = [];

      for (let round = 1; round <= ROUNDS; round++) {
        const acked: Acked = { orderChanges: [], sections: [], brandTitle: {}, available: {} };
        let killed = false;
        const guard = async (fn: () => Promise<void>) => {
          try {
            await fn();
          } catch {
            // The process died under this request: it stays unacknowledged.
          }
        };
        const workers = [
          // Order workers: a new order, then its forward path, again and again until the kill.
          ...Array.from({ length: ORDER_WORKERS }, () =>
            guard(async () => {
              while (!killed) {
                const o = await op('POST', '/v1/operator/orders', {
                  business_id: cred.businessId,
                  brand_id: branch.brand_ids[0],
                  branch_id: branch.id,
                });
                if (o.status !== 201) continue;
                for (const status of ['ACCEPTED', 'READY', 'DELIVERED']) {
                  if (killed) return;
                  const id = o.body.data.id;
                  const r = await api('PATCH', '/v1/partner/orders/status', {
                    id,
                    status,
                    platform: 'enterprise',
                  });
                  if (r.status === 200)
                    acked.orderChanges.push({
                      orderId: id,
                      status: r.body.data.status,
                      updated_at: r.body.data.updated_at,
                    });
                }
              }
            }),
          ),
          guard(async () => {
            for (let i = 0; !killed && i < 10_000; i++) {
              const title = `Crash R${round} S${i}`;
              const r = await api('POST', '/v1/partner/menus/sections', { brand_id: 1, title });
              if (r.status === 201) acked.sections.push(title);
            }
          }),
          guard(async () => {
            for (let i = 0; !killed && i < 10_000; i++) {
              const title = `Kopi Kita R${round}-${i}`;
              acked.brandTitle.inFlight = title;
              const r = await api('PATCH', '/v1/partner/brands/1', { title });
              if (r.status === 200) acked.brandTitle.acked = title;
            }
          }),
          guard(async () => {
            for (let i = 0; !killed && i < 10_000; i++) {
              const isAvailable = i % 2 === 0;
              acked.available.inFlight = isAvailable;
              const r = await api('PATCH', '/v1/partner/items/KK-EKS/availability', {
                branch_id: branch.id,
                isAvailable,
              });
              if (r.status === 200) acked.available.acked = isAvailable;
            }
          }),
        ];
        await new Promise((r) => setTimeout(r, 100 + Math.floor(random() * 500)));
        killed = true;
        srv.child.kill('SIGKILL');
        expect(await srv.exited).toBeNull();
        await Promise.all(workers);

        // The file as the killed process left it (PostgreSQL's own files are its server's business).
        if (!database) {
          const db = new Database(join(dataDir, 'partner.db'));
          const integrity = db.pragma('integrity_check', { simple: true });
          db.close();
          expect(integrity).toBe('ok');
        }

        srv = await spawnServer({ ...where, retrySchedule: [100, 200, 400, 800] });
        for (const c of acked.orderChanges) {
          const o = (await api('GET', `/v1/partner/orders/${c.orderId}`)).body.data;
          expect(
            o.status_history.some((h: Any) => h.status === c.status && h.at === c.updated_at),
            `order ${c.orderId} → ${c.status}`,
          ).toBe(true);
        }
        const tree = (await api('GET', '/v1/partner/menus')).body.data.brands.find(
          (b: Any) => b.brand_id === 1,
        );
        const titles = new Set([
          ...tree.sections.map((x: Any) => x.title),
          ...tree.unlinked.categories.map((x: Any) => x.title),
        ]);
        for (const t of acked.sections) expect(titles.has(t), t).toBe(true);
        const brand = (await api('GET', '/v1/partner/brands')).body.data[0].brands.find(
          (b: Any) => b.id === 1,
        );
        if (acked.brandTitle.acked)
          expect([acked.brandTitle.acked, acked.brandTitle.inFlight]).toContain(brand.title);
        const menu = (await api('GET', `/v1/partner/menus?brand_id=1&branch_id=${branch.id}`)).body.data;
        const item = menu.sections
          .flatMap((x: Any) => x.categories.flatMap((c: Any) => c.items))
          .find((i: Any) => i.partner_item_id === 'KK-EKS');
        if (acked.available.acked !== undefined)
          expect([acked.available.acked, acked.available.inFlight]).toContain(item.isAvailable);
        allChanges.push(...acked.orderChanges);
        figures.push(
          `r${round}: ${acked.orderChanges.length} status changes, ${acked.sections.length} sections`,
        );
      }

      // Every acknowledged change's event arrives (deliveries resume after each restart), once per change.
      const idsOf = () => {
        const m = new Map<string, Set<string>>();
        for (const g of rec.got)
          for (const o of JSON.parse(g.body.toString()).orders) {
            const k = `${o.id} ${o.status} ${o.updated_at}`;
            m.set(k, (m.get(k) ?? new Set()).add(String(g.headers['x-partner-event-id'])));
          }
        return m;
      };
      const end = Date.now() + 15_000;
      while (
        allChanges.some((c) => !idsOf().has(`${c.orderId} ${c.status} ${c.updated_at}`)) &&
        Date.now() < end
      )
        await new Promise((r) => setTimeout(r, 100));
      const ids = idsOf();
      for (const c of allChanges)
        expect(
          ids.get(`${c.orderId} ${c.status} ${c.updated_at}`)?.size,
          `event of ${c.orderId} → ${c.status}`,
        ).toBe(1);
      const eventIds = new Set(rec.got.map((g) => g.headers['x-partner-event-id']));
      console.log(
        `crash (${mode()}): ${ROUNDS} kill -9 rounds (${figures.join('; ')}); all ${allChanges.length} acknowledged status changes ` +
          `present after restart with their event delivered under one id (${eventIds.size} event ids, ${rec.got.length} deliveries received)${database ? ' on PostgreSQL' : '; integrity_check ok every round'}`,
      );
    } finally {
      srv?.child.kill('SIGTERM');
      await srv?.exited;
      await rec.close();
    }
  },
  FULL ? 300_000 : 60_000,
);

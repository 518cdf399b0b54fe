import { SCOPES } from '../../contract/scopes.js';
import { insertBranch } from '../handlers/brands.js';
import { issueCredential } from '../services/credentials.js';
import type { Services } from '../handlers/context.js';
import { sql } from '../store/sqlite/statements.js';
import { DEMO_BUSINESSES } from './demo-data.js';
import { seedDemoMenus } from './demo-menus.js';
import { seedDemoOrders } from './demo-orders.js';

export interface SeededBusiness {
  id: number;
  title: string;
  brands: { key: string; id: number }[];
  branches: { key: string; id: number; brand_ids: number[] }[];
}

export interface SeededCredential {
  business_id: number;
  business_title: string;
  key: string;
  secret: string;
}

/** Fills an empty database with the demo businesses and issues one full-scope credential each. */
export async function seedDemo(services: Services): Promise<SeededCredential[]> {
  const { db } = services;
  const at = new Date(services.now()).toISOString();
  const businesses = db.transaction(() =>
    DEMO_BUSINESSES.map((biz) => {
      const businessId = Number(
        sql(db, 'INSERT INTO businesses (title, address, logo, created_at) VALUES (?, ?, ?, ?)').run(
          biz.title,
          biz.address,
          biz.logo,
          at,
        ).lastInsertRowid,
      );
      const brandIds = new Map<string, number>();
      for (const b of biz.brands) {
        const id = sql(
          db,
          'INSERT INTO brands (business_id, title, logo, banner, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
        ).run(businessId, b.title, b.logo, b.banner, at, at).lastInsertRowid;
        brandIds.set(b.key, Number(id));
      }
      const groupIds = biz.price_groups.map((g) =>
        Number(
          sql(
            db,
            'INSERT INTO price_groups (business_id, title, description, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
          ).run(businessId, g.title, g.description, at, at).lastInsertRowid,
        ),
      );
      const branches = biz.branches.map((br, i) => {
        const brand_ids = br.brand_keys.map((k) => brandIds.get(k)!);
        const record = insertBranch(
          db,
          businessId,
          {
            ...br.fields,
            brand_ids,
            // The first branch of each business shows a price tier in use.
            ...(i === 0 && groupIds[0] !== undefined ? { price_group_id: groupIds[0] } : {}),
          },
          services.now(),
        );
        return { key: br.key, id: (JSON.parse(record) as { id: number }).id, brand_ids };
      });
      const seededBusiness: SeededBusiness = {
        id: businessId,
        title: biz.title,
        brands: [...brandIds].map(([key, id]) => ({ key, id })),
        branches,
      };
      return seededBusiness;
    }),
  )();
  const out: SeededCredential[] = [];
  // Later resources (orders, menus) add their demo data here, given the ids above.
  seedDemoMenus(services, businesses);
  seedDemoOrders(services, businesses);
  for (const b of businesses) {
    const c = await issueCredential(services.store, { business_id: b.id, scopes: SCOPES }, services.now);
    out.push({ business_id: b.id, business_title: b.title, key: c.key, secret: c.secret });
  }
  return out;
}

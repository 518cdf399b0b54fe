import { SCOPES } from '../../contract/scopes.js';
import type { Services } from '../handlers/context.js';
import { createBranch, createBrand } from '../services/branches.js';
import { createPriceGroup } from '../services/catalog.js';
import { createBusiness, issueCredential } from '../services/credentials.js';
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
  const { store } = services;
  const now = services.now();
  const businesses = await store.write(async (tx) => {
    const out: SeededBusiness[] = [];
    for (const biz of DEMO_BUSINESSES) {
      const business = await createBusiness(
        tx,
        { title: biz.title, address: biz.address, logo: biz.logo },
        now,
      );
      const t = tx.tenant(business.id);
      const brandIds = new Map<string, number>();
      for (const b of biz.brands) {
        brandIds.set(
          b.key,
          (await createBrand(t, { title: b.title, logo: b.logo, banner: b.banner }, now)).id,
        );
      }
      const groupIds: number[] = [];
      for (const g of biz.price_groups) {
        groupIds.push((await createPriceGroup(t, { title: g.title, description: g.description }, now)).id);
      }
      const branches: SeededBusiness['branches'] = [];
      for (const [i, br] of biz.branches.entries()) {
        const brand_ids = br.brand_keys.map((k) => brandIds.get(k)!);
        const record = await createBranch(
          t,
          {
            ...br.fields,
            brand_ids,
            // The first branch of each business shows a price tier in use.
            ...(i === 0 && groupIds[0] !== undefined ? { price_group_id: groupIds[0] } : {}),
          },
          now,
        );
        branches.push({ key: br.key, id: (JSON.parse(record) as { id: number }).id, brand_ids });
      }
      out.push({
        id: business.id,
        title: biz.title,
        brands: [...brandIds].map(([key, id]) => ({ key, id })),
        branches,
      });
    }
    return out;
  });
  const out: SeededCredential[] = [];
  // Later resources (orders, menus) add their demo data here, given the ids above.
  await seedDemoMenus(services, businesses);
  await seedDemoOrders(services, businesses);
  for (const b of businesses) {
    const c = await issueCredential(
      services.store,
      services.secrets,
      { business_id: b.id, scopes: SCOPES },
      services.now,
    );
    out.push({ business_id: b.id, business_title: b.title, key: c.key, secret: c.secret });
  }
  return out;
}

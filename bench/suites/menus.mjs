// Issue 5: GET /v1/partner/menus for a published 200-item store menu (with some live stock
// state) against raw node:http serving the same bytes in the same run, and the time to publish
// 200 items × 10 branches.
import { basic, spawnNode, startPartnerServer } from '../lib/server.mjs';
import { fmt, load, median } from '../lib/stats.mjs';

export const title =
  'Menus: GET /v1/partner/menus (200 items) vs raw node:http; publish 200 items × 10 branches';

const RUNS = 3;
const PUBLISHES = 7;
const BRANCHES = 10;
const ITEMS = 200;

export async function run({ log }) {
  const partner = await startPartnerServer({ core: 0 });
  const { baseUrl, credential } = partner.info;
  const auth = basic(credential);
  let seq = 0;
  const api = async (method, path, body, expect = [200, 201]) => {
    const r = await fetch(baseUrl + path, {
      method,
      headers: {
        authorization: auth,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(method === 'GET' ? {} : { 'idempotency-key': `bench-menu-${++seq}` }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await r.text();
    if (!expect.includes(r.status)) throw new Error(`${method} ${path}: ${r.status} ${text}`);
    return JSON.parse(text).data;
  };

  let lines;
  let raw;
  try {
    // A brand carried by ten branches.
    const brand = await api('POST', '/v1/partner/brands', { title: 'Bench Bistro' });
    const week = Object.fromEntries(
      ['0', '1', '2', '3', '4', '5', '6'].map((d) => [d, { slots: [{ startTime: 800, endTime: 2200 }] }]),
    );
    const branches = [];
    for (let i = 0; i < BRANCHES; i++) {
      const b = await api('POST', '/v1/partner/branches', {
        title: `Bench Bistro ${i + 1}`,
        brand_ids: [brand.id],
        country_id: 1,
        city_id: 101,
        currency_id: 1,
        available_times: week,
      });
      branches.push(b.id);
    }

    // 200 items in 10 categories over 4 sections; 3 shared modifier groups of 4 modifiers.
    const prices = (n) => ({
      1: String(n + 5000),
      2: String(n + 5000),
      3: String(n + 5000),
      7: String(n),
      8: String(n),
      9: String(n),
    });
    const groups = [];
    for (let g = 0; g < 3; g++) {
      const group = await api('POST', '/v1/partner/menus/modifier-groups', {
        brand_id: brand.id,
        title: `Options ${g + 1}`,
        min: 0,
        max: 2,
      });
      const mods = [];
      for (let k = 0; k < 4; k++) {
        const mod = await api('POST', '/v1/partner/menus/items', {
          brand_id: brand.id,
          title: `Option ${g + 1}.${k + 1}`,
          partner_item_id: `BENCH-MOD-${g}-${k}`,
          prices: prices(1000 * k),
          onlyModifier: true,
        });
        mods.push(mod.id);
      }
      await api('POST', '/v1/partner/menus/modifier-groups/modifiers', {
        group_id: group.id,
        modifier_ids: mods,
      });
      groups.push({ id: group.id, mods });
    }
    const sections = [];
    for (let i = 0; i < 4; i++) {
      sections.push(
        (await api('POST', '/v1/partner/menus/sections', { brand_id: brand.id, title: `Section ${i + 1}` }))
          .id,
      );
    }
    const perCategory = ITEMS / 10;
    for (let c = 0; c < 10; c++) {
      const cat = await api('POST', '/v1/partner/menus/categories', {
        brand_id: brand.id,
        title: `Category ${c + 1}`,
      });
      await api('POST', '/v1/partner/menus/categories/link', {
        section_id: sections[c % 4],
        category_ids: [cat.id],
      });
      for (let k = 0; k < perCategory; k++) {
        const n = c * perCategory + k;
        const item = await api('POST', '/v1/partner/menus/items', {
          brand_id: brand.id,
          title: `Dish number ${n + 1} with a realistic length of title`,
          partner_item_id: `BENCH-${n}`,
          prices: prices(20000 + 500 * n),
          onlyModifier: false,
          description: 'House speciality, freshly prepared',
        });
        await api('POST', '/v1/partner/menus/items/categories/link', {
          item_id: item.id,
          category_ids: [cat.id],
        });
        for (const g of [groups[n % 3], ...(n % 2 ? [groups[(n + 1) % 3]] : [])]) {
          await api('POST', '/v1/partner/menus/modifier-groups/link', {
            group_id: g.id,
            item_ids: [item.id],
            min: 0,
            max: 2,
            modifier_ids: g.mods,
          });
        }
      }
    }

    let t0 = performance.now();
    await api('POST', '/v1/partner/menus/sync', { brand_id: brand.id });
    const syncMs = performance.now() - t0;
    const publishMs = [];
    for (let i = 0; i < PUBLISHES; i++) {
      t0 = performance.now();
      const pub = await api('POST', '/v1/partner/menus/publish', { brand_id: brand.id });
      publishMs.push(performance.now() - t0);
      if (pub.branches.length !== BRANCHES) throw new Error(`published ${pub.branches.length} branches`);
    }
    log(`sync ${fmt(syncMs, 1)} ms; publish ms: ${publishMs.map((x) => fmt(x, 1)).join(', ')}`);

    // Some live state, as a store would have: stock counts and an item out of stock.
    await api('PATCH', '/v1/partner/items/stocks', {
      branch_id: branches[0],
      items: Array.from({ length: 10 }, (_, i) => ({ partner_item_id: `BENCH-${i * 7}`, stock: 5 + i })),
    });
    await api('PATCH', '/v1/partner/items/BENCH-3/availability', {
      branch_id: branches[0],
      isAvailable: false,
    });

    const url = `${baseUrl}/v1/partner/menus?brand_id=${brand.id}&branch_id=${branches[0]}`;
    const headers = { authorization: auth };
    const sample = await (await fetch(url, { headers })).text();
    const menu = JSON.parse(sample).data;
    const count = menu.sections.reduce((n, s) => n + s.categories.reduce((m, c) => m + c.items.length, 0), 0);
    if (count !== ITEMS) throw new Error(`expected ${ITEMS} items, got ${count}`);

    raw = await spawnNode(
      `import http from 'node:http';
       const body = ${JSON.stringify(sample)};
       const s = http.createServer((req, res) => { res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) }); res.end(body); });
       s.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: 'http://127.0.0.1:' + s.address().port + '/' })));
       process.on('SIGTERM', () => process.exit(0));`,
      { core: 0 },
    );

    const rawRuns = [];
    const partnerRuns = [];
    await load({ url: raw.info.url, duration: 1 }); // warm-up
    await load({ url, headers, duration: 1 });
    for (let i = 0; i < RUNS; i++) {
      rawRuns.push(await load({ url: raw.info.url }));
      partnerRuns.push(await load({ url, headers }));
      log(
        `run ${i + 1}: raw ${fmt(rawRuns[i].rps)} req/s p99 ${rawRuns[i].p99} ms · partner ${fmt(partnerRuns[i].rps)} req/s p99 ${partnerRuns[i].p99} ms (non-2xx ${partnerRuns[i].non2xx})`,
      );
    }
    const rawRps = median(rawRuns.map((r) => r.rps));
    const rps = median(partnerRuns.map((r) => r.rps));
    const p99 = median(partnerRuns.map((r) => r.p99));
    const bad = partnerRuns.reduce((n, r) => n + r.non2xx + r.errors, 0);
    const pub = median(publishMs);
    lines = [
      `GET: payload ${fmt(Buffer.byteLength(sample))} bytes (${ITEMS} items, 3 shared modifier groups, 11 items with live stock state); 50 connections, ${RUNS} × 5 s each, server pinned to core 0, load on core 1; medians.`,
      '',
      '| | req/s | p99 ms |',
      '|---|---:|---:|',
      `| raw node:http (floor) | ${fmt(rawRps)} | ${median(rawRuns.map((r) => r.p99))} |`,
      `| partner GET /menus | ${fmt(rps)} | ${p99} |`,
      '',
      `**ratio ${fmt(rps / rawRps, 2)}** · **p99 ${p99} ms** · non-2xx/errors: ${bad}`,
      '',
      `Publish ${ITEMS} items × ${BRANCHES} branches (one HTTP call, one transaction; median of ${PUBLISHES}): **${fmt(pub, 1)} ms** (${fmt(pub / BRANCHES, 1)} ms per store; min ${fmt(Math.min(...publishMs), 1)}, max ${fmt(Math.max(...publishMs), 1)}). Sync of the same: ${fmt(syncMs, 1)} ms.`,
    ];
  } finally {
    await raw?.close();
    await partner.close();
  }
  return lines;
}

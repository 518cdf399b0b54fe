// Data the server suites share.
import { basic } from './server.mjs';

/** Creates `n` branches (a full page of 20 for the GET /branches suites); returns the page URL and headers. */
export async function seedBranches(baseUrl, credential, n = 20) {
  const week = Object.fromEntries(
    ['0', '1', '2', '3', '4', '5', '6'].map((d) => [d, { slots: [{ startTime: 800, endTime: 2200 }] }]),
  );
  for (let i = 0; i < n; i++) {
    const r = await fetch(`${baseUrl}/v1/partner/branches`, {
      method: 'POST',
      headers: {
        authorization: basic(credential),
        'content-type': 'application/json',
        'idempotency-key': `bench-branch-${i}`,
      },
      body: JSON.stringify({
        title: `Bench branch ${i}`,
        brand_ids: [1],
        country_id: 1,
        city_id: 101,
        currency_id: 1,
        available_times: week,
        phone: '+6281234567890',
      }),
    });
    if (r.status !== 201) throw new Error(`seeding branch: ${r.status} ${await r.text()}`);
  }
  const url = `${baseUrl}/v1/partner/branches?page=1&size=20`;
  const headers = { authorization: basic(credential) };
  const sample = await (await fetch(url, { headers })).text();
  if (JSON.parse(sample).data.results.length !== 20) throw new Error('expected 20 branches');
  return { url, headers, sample };
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWithProfile } from '../helpers/profile.js';
import { startRecorder } from '../helpers/receiver.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { ensureBuilt, type Running, startInProcess, tempDir } from './harness.js';

// The inspect page's server without a browser: the token on everything but the page's own code,
// the headers, POST only for the actions, and no secret in anything it answers.

let s: TestServer;
let rec: Awaited<ReturnType<typeof startRecorder>>;
let configDir: string;
let inspect: Running;

beforeAll(async () => {
  ensureBuilt();
  ({ s, configDir } = await startWithProfile());
  rec = await startRecorder();
  inspect = await startInProcess(['inspect', '--data', s.dataDir], { configDir });
}, 60_000);
afterAll(async () => {
  await inspect?.stop();
  await rec?.close();
  await s?.close();
});

const api = (path: string, init: RequestInit & { token?: string | null } = {}) => {
  const { token = inspect.token, ...rest } = init;
  return fetch(`${inspect.origin}${path}`, {
    ...rest,
    headers: {
      ...(token === null ? {} : { 'x-inspect-token': token }),
      ...(rest.headers as Record<string, string>),
    },
  });
};

describe('partner inspect: the page’s server', () => {
  it('prints a 127.0.0.1 URL with a per-run token and what each view reads', () => {
    expect(inspect.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{43}$/);
    expect(inspect.err()).toContain(`the local server at ${s.baseUrl}`);
    expect(inspect.err()).toContain(`menu preview:       ${s.credential.key} at ${s.baseUrl}`);
  });

  it('answers 401 without the token or with a wrong one, everywhere but the page’s code', async () => {
    expect((await fetch(`${inspect.origin}/`)).status).toBe(401);
    expect((await fetch(`${inspect.origin}/?token=${inspect.token.slice(0, -1)}x`)).status).toBe(401);
    for (const path of ['/api/info', '/api/webhooks', '/api/stream', '/api/menu/targets', '/api/requests']) {
      const none = await api(path, { token: null });
      expect(none.status, path).toBe(401);
      expect(((await none.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
      expect((await api(path, { token: 'nope' })).status, path).toBe(401);
    }
    const post = await api('/api/webhooks/d1/replay', { method: 'POST', token: null, body: '{}' });
    expect(post.status).toBe(401);
    // The code and styles (the package's own files, no data in them) load without it.
    expect((await fetch(`${inspect.origin}/assets/app.js`)).status).toBe(200);
    const page = await fetch(inspect.url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<script type="module" src="/assets/app.js">');
  });

  it('sends a strict Content-Security-Policy and no referrer with every answer', async () => {
    for (const r of [
      await fetch(inspect.url),
      await api('/api/info'),
      await fetch(`${inspect.origin}/assets/app.css`),
    ]) {
      const csp = r.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("style-src 'self'");
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
      expect(r.headers.get('referrer-policy')).toBe('no-referrer');
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('reads with GET only; replay and resend need a JSON POST', async () => {
    expect((await api('/api/webhooks/d1/replay')).status).toBe(405);
    expect(
      (
        await api('/api/info', {
          method: 'POST',
          body: '{}',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
    ).toBe(405);
    expect((await api('/api/webhooks', { method: 'DELETE' })).status).toBe(405);
    const form = await api('/api/webhooks/d1/replay', {
      method: 'POST',
      body: 'a=b',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
    expect((await api('/api/nothing')).status).toBe(404);
    expect((await api('/api/menu?brand_id=x&branch_id=1')).status).toBe(400);
  });

  it('shows deliveries and menus without ever sending a secret', async () => {
    const added = await s.operator('POST', '/v1/operator/webhooks', {
      business_id: s.credential.businessId,
      url: rec.url,
      event: 'all',
    });
    expect(added.status).toBe(201);
    const order = await s.operator('POST', '/v1/operator/orders', {
      business_id: s.credential.businessId,
      brand_id: 1,
      branch_id: 1,
      items: 2,
    });
    expect(order.status).toBe(201);
    await rec.waitFor(1);
    const whsec = (
      await s.operator('POST', '/v1/operator/webhook-secrets', { business_id: s.credential.businessId })
    ).body.data.webhook_secret_key as string;

    const { rows } = (await (await api('/api/webhooks')).json()) as {
      rows: { key: string; order_ids: number[] }[];
    };
    const row = rows.find((r) => r.order_ids.includes(order.body.data.id));
    expect(row).toBeDefined();
    const answers = [
      await (await api('/api/info')).text(),
      JSON.stringify(rows),
      await (await api(`/api/webhooks/${row!.key}`)).text(),
      await (await api('/api/menu/targets')).text(),
      await (await api('/api/menu?brand_id=1&branch_id=1')).text(),
    ];
    for (const text of answers) {
      expect(text).not.toContain(s.credential.secret);
      expect(text).not.toContain(s.operatorToken);
      expect(text).not.toContain(whsec);
    }
    expect(answers[2]).toContain('"x-partner-signature"');
    expect(JSON.parse(answers[4]!).snapshot.brand_id).toBe(1);
  });
});

describe('partner inspect when the local server goes away', () => {
  it('says so on the open page’s stream, and recovers nothing silently', async () => {
    const gone = await startTestServer({ seed: 'demo' });
    const cfg = tempDir('partner-cfg-');
    const r = await startInProcess(['inspect', '--data', gone.dataDir], { configDir: cfg });
    const ctl = new AbortController();
    try {
      const res = await fetch(`${r.origin}/api/stream`, {
        headers: { 'x-inspect-token': r.token },
        signal: ctl.signal,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = '';
      const until = async (re: RegExp) => {
        const end = Date.now() + 15_000;
        while (!re.test(text)) {
          if (Date.now() > end) throw new Error(`no ${re} in the stream: ${text.slice(-500)}`);
          const { value, done } = await reader.read();
          if (done) throw new Error('stream ended');
          text += value;
        }
      };
      // Opens with the lists as they are.
      await until(/event: webhooks\ndata: \[\]\n\n/);
      await until(/event: requests\ndata: /);
      await gone.close();
      await until(/event: info\ndata: \{[^\n]*"local":\{"base_url":"http:[^"]+","error":"[^"]+"/);
    } finally {
      ctl.abort();
      expect(await r.stop()).toBe(0);
    }
  });
});

describe('partner inspect without anything to inspect', () => {
  it('exits 2 naming the local server and the profile it looked for', async () => {
    const empty = tempDir('partner-cfg-');
    const r = await startInProcess(['inspect', '--data', tempDir()], { configDir: empty }).catch(
      (e: Error) => e,
    );
    expect(r).toBeInstanceOf(Error);
    expect((r as Error).message).toMatch(
      /nothing to inspect: no local server found .*local\.json is missing.*menu preview, no credential/s,
    );
  });
});

// `npm run bench:pages`: for each page route, the gzipped JS and CSS a browser downloads (found by
// loading the page in Chromium, then measured as gzip -9 of each file) and the server render time
// over 200 sequential requests (median, p95). Prints JSON. Budgets are reported, not enforced:
// ≤ 100 KB JS gz on a console page, ≤ 2 KB on public pages, ≤ 30 KB CSS gz. The budget is for the
// script at load: what a page imports after its first paint (it marks that moment in the Performance
// timeline as 'transact:lazy-import', src/components/CodeEditor.tsx) is reported apart, as
// `lazy_js_gz_bytes`, with whether it started after the first contentful paint.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { builtStamp, sourceStamp } from './build-stamp.mjs';
import { freePort, startService } from './lib/service-harness.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const ROUTES = [
  { route: '/login', kind: 'public' },
  { route: '/', kind: 'console' },
  { route: '/groups', kind: 'console' },
  { route: '/suppression-list', kind: 'console' },
  { route: '/settings', kind: 'console' },
  { route: '/webhook-logs', kind: 'console' },
  { route: '/online-attachments', kind: 'console' },
  { route: '/online-attachments/create', kind: 'console' },
  { route: '/unauthorized', kind: 'console' },
];
const BUDGET = { console: { js: 100 * 1024, css: 30 * 1024 }, public: { js: 2 * 1024, css: 30 * 1024 } };

if (builtStamp(root) !== sourceStamp(root)) {
  const build = spawnSync(process.execPath, [path.join(root, 'scripts/build.mjs')], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (build.status !== 0) process.exit(1);
}

const port = await freePort();
const dataDir = mkdtempSync(path.join(tmpdir(), 'transact-bench-'));
const base = `http://127.0.0.1:${port}`;
const env = {
  ...process.env,
  PORT: String(port),
  HOST: '127.0.0.1',
  PUBLIC_URL: base,
  DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
  ROLES: 'web',
  TRANSACT_ADMIN_EMAIL: 'bench@example.com',
  TRANSACT_ADMIN_PASSWORD: 'bench-password-123',
};
// five minutes: a first start on a busy machine is slow
const start = () => startService({ env, stdio: ['ignore', 'ignore', 'inherit'], timeoutMs: 300_000 });
// the group report pages need a group with traffic: a small demo account, added after a first start
// has created the administrator, with the service stopped (one process per embedded database)
await (await start()).stop();
const demo = spawnSync(process.execPath, [path.join(root, 'dist/admin.mjs'), 'demo', '--transactions', '300'], {
  env,
  encoding: 'utf8',
});
const demoPassword = /password:\s+(\S+)/.exec(demo.stdout ?? '')?.[1];
if (demo.status !== 0 || !demoPassword) throw new Error(`npm run demo failed:\n${demo.stderr}${demo.stdout}`);
let service;
try {
  service = await start();
  const login = await fetch(`${base}/v1/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Request-Type': 'ui', Origin: base },
    body: JSON.stringify({ email: 'bench@example.com', password: 'bench-password-123' }),
  });
  const cookie = /transact_session=[^;]+/.exec(login.headers.get('set-cookie') ?? '')?.[0];
  if (!cookie) throw new Error(`sign-in failed: ${login.status}`);
  const demoLogin = await fetch(`${base}/v1/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Request-Type': 'ui', Origin: base },
    body: JSON.stringify({ email: 'demo@demo-shop.example', password: demoPassword }),
  });
  const demoCookie = /transact_session=[^;]+/.exec(demoLogin.headers.get('set-cookie') ?? '')?.[0];
  if (!demoCookie) throw new Error(`demo sign-in failed: ${demoLogin.status}`);
  const groups = await (
    await fetch(`${base}/v1/transaction-groups/search`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Request-Type': 'ui', Origin: base, Cookie: demoCookie },
      body: JSON.stringify({ searchQuery: 'Orders' }),
    })
  ).json();
  const group = groups.data[0].group_uuid;
  for (const report of ['overview', 'sent', 'opens', 'clicks', 'failed', 'bounced'])
    ROUTES.push({ route: `/groups/${group}/${report}`, kind: 'console', cookie: demoCookie });
  ROUTES.push({ route: '/export/00000000-0000-4000-8000-000000000000', kind: 'console', cookie: demoCookie });
  // the dashboard with traffic (the chart and the breakdown), the template pages and the public pages
  // a recipient opens: unsubscribe and a download link
  const asDemo = (method, route, body, type = 'application/json') =>
    fetch(`${base}${route}`, {
      method,
      headers: { 'Content-Type': type, 'Request-Type': 'ui', Origin: base, Cookie: demoCookie },
      body: type === 'application/json' ? JSON.stringify(body) : body,
    });
  ROUTES.push({ route: '/', name: '/ (with traffic)', kind: 'console', cookie: demoCookie });
  const template = await (
    await asDemo('POST', '/v1/templates', {
      name: 'Receipt',
      subject: 'Order {{order}}',
      content_html: '<p>Hello {{name}}</p>',
    })
  ).json();
  if (!template.template?.id) throw new Error(`template create failed: ${JSON.stringify(template)}`);
  ROUTES.push(
    { route: '/templates', kind: 'console', cookie: demoCookie },
    { route: '/templates/create', kind: 'console', cookie: demoCookie },
  );
  // the editor imports CodeMirror after its first paint: wait for it, to report that chunk apart
  ROUTES.push({
    route: `/templates/edit/${template.template.id}`,
    kind: 'console',
    cookie: demoCookie,
    lazyReady: '[data-testid=code-editor][data-ready=yes]',
  });
  const form = new FormData();
  form.append('group', JSON.stringify({ name: 'Invoices' }));
  form.append('asset', new Blob(['an invoice'], { type: 'text/plain' }), 'invoice.txt');
  const link = await (
    await fetch(`${base}/v1/tracked-attachments/groups`, {
      method: 'POST',
      headers: { 'Request-Type': 'ui', Origin: base, Cookie: demoCookie },
      body: form,
    })
  ).json();
  if (!link.preview_link) throw new Error(`download link create failed: ${JSON.stringify(link)}`);
  ROUTES.push({ route: new URL(link.preview_link).pathname, name: '/a/{id}', kind: 'public' });
  const sent = await (await asDemo('POST', '/v1/transaction/search', { page: 1 })).json();
  const transaction = sent.transactions?.data?.[0]?.trans_uuid ?? sent.data?.[0]?.trans_uuid;
  if (!transaction) throw new Error(`no transaction to unsubscribe from: ${JSON.stringify(sent).slice(0, 300)}`);
  ROUTES.push(
    { route: `/unsubscribe/${transaction}`, name: '/unsubscribe/{id}', kind: 'public' },
    { route: `/header-unsubscribe/${transaction}`, name: '/header-unsubscribe/{id}', kind: 'public' },
  );

  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
  const results = [];
  for (const { route, name = route, kind, cookie: routeCookie = cookie, lazyReady } of ROUTES) {
    const context = await browser.newContext();
    if (kind === 'console')
      await context.addCookies([{ name: 'transact_session', value: routeCookie.split('=')[1], url: base }]);
    const page = await context.newPage();
    const assets = new Map();
    page.on('response', (res) => {
      const type = res.request().resourceType();
      if (type === 'script' || type === 'stylesheet') assets.set(res.url(), type);
    });
    const nav = await page.goto(`${base}${route}`, { waitUntil: 'networkidle' });
    if (lazyReady) await page.waitForSelector(lazyReady, { timeout: 120_000 });
    // small scripts and styles are inlined into the page by Astro: they are shipped too
    const inline = await page.evaluate(() => ({
      js: [...document.querySelectorAll('script:not([src])')].map((s) => s.textContent ?? '').join('\n'),
      css: [...document.querySelectorAll('style')].map((s) => s.textContent ?? '').join('\n'),
    }));
    // when each file was asked for, and when the page started its lazy imports (if it has any)
    const timeline = await page.evaluate(() => ({
      started: Object.fromEntries(performance.getEntriesByType('resource').map((e) => [e.name, e.startTime])),
      lazy: performance.getEntriesByName('transact:lazy-import', 'mark')[0]?.startTime ?? null,
      firstPaint: performance.getEntriesByName('first-contentful-paint', 'paint')[0]?.startTime ?? null,
    }));
    let js = inline.js.trim() ? gzipSync(Buffer.from(inline.js), { level: 9 }).length : 0;
    let css = inline.css.trim() ? gzipSync(Buffer.from(inline.css), { level: 9 }).length : 0;
    let lazyJs = 0;
    for (const [url, type] of assets) {
      const body = Buffer.from(await (await fetch(url, { headers: { 'Accept-Encoding': 'identity' } })).arrayBuffer());
      const gz = gzipSync(body, { level: 9 }).length;
      const started = timeline.started[url];
      if (type === 'script' && timeline.lazy !== null && started !== undefined && started >= timeline.lazy)
        lazyJs += gz;
      else if (type === 'script') js += gz;
      else css += gz;
    }
    await context.close();

    const times = [];
    const headers =
      kind === 'console' ? { Cookie: routeCookie, 'Accept-Encoding': 'gzip' } : { 'Accept-Encoding': 'gzip' };
    for (let i = 0; i < REQUESTS; i++) {
      const t0 = performance.now();
      const res = await fetch(`${base}${route}`, { headers, redirect: 'manual' });
      await res.arrayBuffer();
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const budget = BUDGET[kind];
    results.push({
      route: name,
      kind,
      status: nav?.status(),
      js_gz_bytes: js,
      css_gz_bytes: css,
      ...(timeline.lazy === null
        ? {}
        : {
            lazy_js_gz_bytes: lazyJs,
            lazy_after_first_paint: timeline.firstPaint !== null && timeline.lazy > timeline.firstPaint,
          }),
      render_ms: {
        median: +times[Math.floor(times.length / 2)].toFixed(2),
        p95: +times[Math.floor(times.length * 0.95)].toFixed(2),
      },
      budget: { js_gz_bytes: budget.js, css_gz_bytes: budget.css },
      within_budget: js <= budget.js && css <= budget.css,
    });
  }
  await browser.close();
  console.log(
    JSON.stringify({ benchmark: 'pages', requests_per_route: REQUESTS, engine: 'pglite', pages: results }, null, 2),
  );
} finally {
  await service?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

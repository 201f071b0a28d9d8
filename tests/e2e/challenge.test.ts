// Sign-in through the parent platform (docs/console-reports.md §2, Login challenge page): /login?install_url=…
// shows a Loading card, sends the browser to the platform's /transact/authorize with a challenge,
// and the platform sends it back with a signed assertion. Here page.route plays the platform.
import { SignJWT } from 'jose';
import { version } from '../../package.json';
import type { Browser, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PARENT, launchBrowser, location, openPage, screenshot } from '../helpers/browser.ts';
import { prepareServer, type RunningServer } from '../helpers/server.ts';

const SECRET = 'parent-platform-secret-0123456789abcdef';

let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  server = await prepareServer({ PARENT_PLATFORM_URL: PARENT, PARENT_PLATFORM_SECRET: SECRET });
  await server.start();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** The assertion the parent platform signs for a challenge. */
async function assertion(challenge: string, secret = SECRET): Promise<string> {
  return new SignJWT({
    nonce: challenge,
    enterprise: { id: 'ent-9', name: 'Parent Ent', pmailer_url: PARENT, header_colour: '#116611' },
    customer: { id: 'cust-9', name: 'Parent Customer' },
    user: {
      id: 'user-9',
      email: 'parent.user@example.com',
      name: 'Parent User',
      permissions: { send_transactions: 'yes' },
    },
  })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer(PARENT)
    .setAudience(server.baseUrl)
    .setIssuedAt()
    .setExpirationTime('2m')
    .sign(new TextEncoder().encode(secret));
}

/** Answers /transact/authorize like the platform: back to `callback` with an assertion. */
async function authorize(route: Route, secret = SECRET): Promise<void> {
  const url = new URL(route.request().url());
  const challenge = url.searchParams.get('challenge') ?? '';
  const callback = url.searchParams.get('callback') ?? '';
  const location = `${callback}?assertion=${encodeURIComponent(await assertion(challenge, secret))}`;
  await route.fulfill({ status: 302, headers: { Location: location } });
}

describe('/login?install_url= (parent platform sign-in)', () => {
  it('shows Loading, visits the platform with a challenge and comes back signed in on the url page', async () => {
    const { context, page, foreign } = await openPage(browser, server.baseUrl);
    const authorizeUrls: URL[] = [];
    await context.route(`${PARENT}/**`, (route) => {
      const url = new URL(route.request().url());
      if (url.pathname !== '/transact/authorize') return route.fulfill({ status: 404, body: 'not here' });
      authorizeUrls.push(url);
      return authorize(route);
    });
    // hold the challenge call so the Loading page stays on screen while the test looks at it
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await context.route(`${server.baseUrl}/v1/auth/initiate-challenge`, async (route) => {
      await held;
      await route.continue();
    });
    const challengeCall = page.waitForRequest(`${server.baseUrl}/v1/auth/initiate-challenge`);

    await page.goto(`${server.baseUrl}/login?install_url=${encodeURIComponent(`${PARENT}/install`)}&url=unauthorized`);
    const call = await challengeCall;
    expect(call.method()).toBe('POST');
    expect(call.postDataJSON()).toEqual({ installUrl: `${PARENT}/install`, redirect: 'unauthorized' });
    await expect(page.title()).resolves.toBe('Loading');
    // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered, what a person reads
    await expect(page.locator('[data-testid=challenge-card]').innerText()).resolves.toBe('Loading');
    await expect(page.textContent('[data-testid=version]')).resolves.toBe(`Version ${version}`);
    await screenshot(page, 'challenge-loading');

    release();
    await page.waitForURL(`${server.baseUrl}/unauthorized`);
    expect(authorizeUrls).toHaveLength(1);
    expect(authorizeUrls[0].searchParams.get('challenge')).toMatch(/^\S{16,}$/);
    expect(authorizeUrls[0].searchParams.get('callback')).toBe(`${server.baseUrl}/v1/auth/callback`);
    await expect(page.textContent('[data-testid=unauthorized]')).resolves.toBe('Unauthorized');
    await expect(page.textContent('[data-testid=user-name]')).resolves.toBe('Parent User');
    await expect(page.textContent('[data-testid=customer-name]')).resolves.toBe('Parent Customer');
    await expect(
      page.locator('[data-testid=header]').evaluate((el) => getComputedStyle(el).backgroundColor),
    ).resolves.toBe('rgb(17, 102, 17)');
    await screenshot(page, 'challenge-signed-in');

    // a real session: the dashboard opens without the sign-in form
    await page.goto(`${server.baseUrl}/`);
    expect(location(page)).toBe('/');
    expect(foreign).toEqual([]);
    await context.close();
  });

  it('does not sign in with an assertion signed by another key', async () => {
    const { context, page } = await openPage(browser, server.baseUrl);
    await context.route(`${PARENT}/**`, (route) => authorize(route, 'some-other-secret-0123456789abcdefgh'));
    await page.goto(`${server.baseUrl}/login?install_url=${encodeURIComponent(`${PARENT}/install`)}&url=unauthorized`);
    // the callback refuses (/unauthorized), and signed out that is the sign-in page
    await page.waitForURL((url) => url.pathname === '/login' && !url.searchParams.has('install_url'));
    expect(location(page)).toBe('/login?url=unauthorized');
    await context.close();
  });

  it('never follows an install_url on another site', async () => {
    const { context, page, foreign } = await openPage(browser, server.baseUrl);
    const evil: string[] = [];
    await context.route('http://evil.example/**', (route) => {
      evil.push(route.request().url());
      return route.fulfill({ status: 200, body: 'evil' });
    });
    const visited: string[] = [];
    page.on('request', (request) => {
      if (request.isNavigationRequest()) visited.push(request.url());
    });
    await page.goto(
      `${server.baseUrl}/login?install_url=${encodeURIComponent('http://evil.example/install')}&url=unauthorized`,
    );
    await page.waitForURL((url) => url.pathname === '/login' && !url.searchParams.has('install_url'));
    // the challenge was refused, the page went to /unauthorized, which (signed out) is the sign-in page
    expect(visited.map((u) => new URL(u).pathname)).toContain('/unauthorized');
    expect(location(page)).toBe('/login?url=unauthorized');
    expect(evil).toEqual([]);
    expect(foreign).toEqual([]);
    await screenshot(page, 'challenge-foreign-install-url');
    await context.close();
  });
});

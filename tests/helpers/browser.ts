// Debian's Chromium driven by playwright-core (Playwright's own browser download does not work
// here). Screenshots go to test-results/ so a person can look at them. Pages open in their own
// context (no cookies shared between tests) that lets no request leave the machine. One Chromium
// serves the whole run of the browser suite (browser-server.ts).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type BrowserContext, type BrowserContextOptions, type Page, chromium } from 'playwright-core';
import { inject } from 'vitest';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const root = path.resolve(import.meta.dirname, '../..');
export const SCREENSHOTS = path.join(root, 'test-results');

/** The parent platform of the seeded enterprises; never resolved, answered by page.route. */
export const PARENT = 'http://parent.invalid';

/** A small logo the fake parent platform serves at /logo.svg. */
export const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64">' +
  '<rect width="64" height="64" rx="12" fill="#fff"/><circle cx="32" cy="32" r="18" fill="#f5a623"/></svg>';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-quic',
  '--disable-sync',
];

/**
 * The run's shared Chromium (tests/helpers/browser-server.ts) when there is one, else a Chromium of
 * its own; close() ends the connection (and the contexts opened through it) or that Chromium.
 */
export async function launchBrowser(): Promise<Browser> {
  const endpoint = inject('browserEndpoint');
  if (endpoint) return chromium.connect(endpoint);
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

export interface TestPage {
  context: BrowserContext;
  page: Page;
  /** Requests to any other site than the server's, aborted (a later page.route may answer some). */
  foreign: string[];
}

/**
 * A fresh context and page. Requests to other origins than `baseUrl` are recorded and aborted,
 * except the parent platform's /logo.svg; routes a test adds afterwards take precedence. `options`
 * (viewport, timezoneId, locale…) override the context's defaults.
 */
export async function openPage(
  browser: Browser,
  baseUrl: string,
  options: BrowserContextOptions & {
    /** Date stands at this moment in the page (Playwright's clock); its timers run as they do. */
    fixedTime?: Date;
  } = {},
): Promise<TestPage> {
  const { fixedTime, ...contextOptions } = options;
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...contextOptions });
  // the clock's script before the timer count's: the clock drives its timers with the setTimeout it
  // finds, which must not be the counting one (its own pending timer would never let the count reach 0)
  if (fixedTime) await context.clock.setFixedTime(fixedTime);
  const foreign: string[] = [];
  const own = new URL(baseUrl).origin;
  await context.route('**/*', async (route) => {
    const url = new URL(route.request().url());
    if (url.origin === own || url.protocol === 'data:') return route.continue();
    if (url.origin === PARENT && url.pathname === '/logo.svg') {
      return route.fulfill({ status: 200, contentType: 'image/svg+xml', body: LOGO_SVG });
    }
    foreign.push(url.href);
    return route.abort('blockedbyclient');
  });
  await context.addInitScript(countShortTimers);
  const page = await context.newPage();
  return { context, page, foreign };
}

/**
 * Runs in every page before its scripts: counts the timers of under a second that are pending, so
 * chartsDrawn can wait for frappe-charts' delayed drawing instead of sleeping through it.
 */
function countShortTimers(): void {
  const pending = new Set<number>();
  const { setTimeout: set, clearTimeout: clear } = window;
  window.setTimeout = ((handler: TimerHandler, ms = 0, ...args: unknown[]) => {
    if (typeof handler !== 'function' || ms >= 1000) return set(handler, ms, ...args);
    const id = set(() => {
      pending.delete(id);
      handler(...args);
    }, ms);
    pending.add(id);
    return id;
  }) as typeof window.setTimeout;
  window.clearTimeout = (id) => {
    if (typeof id === 'number') pending.delete(id);
    clear(id);
  };
  (window as unknown as { shortTimersPending: () => number }).shortTimersPending = () => pending.size;
}

/**
 * Waits until frappe-charts has drawn the page's charts: it draws the axes, the data 700 ms later,
 * and the final shapes 400 ms after that, each step on a timer; so once no timer of under a second
 * is pending and the animations are over, the charts are as they stay.
 */
export async function chartsDrawn(page: Page): Promise<void> {
  await page.waitForFunction(
    () => (window as unknown as { shortTimersPending?: () => number }).shortTimersPending?.() === 0,
  );
  await animationsDone(page);
}

/**
 * Stops the page's clock (Playwright's, installed first) a minute ahead of its own time, a moment the
 * running clock cannot reach by the next call, for the test to move with runFor: a timeout the page
 * shows (an alert's 2 s, a modal's 3 s) is then counted on that clock, not on a loaded machine's.
 */
async function pauseClock(page: Page): Promise<void> {
  await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 60_000);
}

/**
 * What `show` brings up lasts `ms` on the page's clock (installed first): with the clock paused, `show` runs, the
 * clock moves to 1 ms before `ms`, where `stillShown` must pass (by default: `selector` is visible), then to `ms`,
 * where `selector` must go (`state`: detached, or hidden where it stays); then the clock runs again, whatever happened.
 */
export async function expectShownFor(
  page: Page,
  ms: number,
  selector: string,
  show: () => Promise<unknown>,
  options: { state?: 'detached' | 'hidden'; stillShown?: () => Promise<unknown> } = {},
): Promise<void> {
  await pauseClock(page);
  try {
    await show();
    await page.clock.runFor(ms - 1);
    if (options.stillShown) await options.stillShown();
    else if (!(await page.locator(selector).first().isVisible())) throw new Error(`${selector} went before ${ms} ms`);
    await page.clock.runFor(1);
    // gone at `ms` itself, the clock still stopped there
    await page.waitForSelector(selector, { state: options.state ?? 'detached', timeout: 10_000 });
  } finally {
    await page.clock.resume();
  }
}

/**
 * Runs `checks` with the page's clock (installed first) stopped, then lets it run again: what a timer
 * would take away meanwhile (an alert's 2 s) stays while the test measures it, however slow the
 * machine. Nothing in `checks` may wait for a frame or a timer (animationsDone would never end).
 */
export async function withClockStopped<T>(page: Page, checks: () => Promise<T>): Promise<T> {
  await pauseClock(page);
  try {
    return await checks();
  } finally {
    await page.clock.resume();
  }
}

/**
 * The texts of the alerts `selector` matches, read in the same step that finds them (at least one),
 * so an alert that a timer removes cannot go between the wait and the read.
 */
export async function alertTexts(page: Page, selector = '[data-testid=alert]'): Promise<string[]> {
  const texts = await page.waitForFunction((s) => {
    const found = [...document.querySelectorAll(s)].map((a) => a.textContent ?? '');
    return found.length > 0 ? found : null;
  }, selector);
  return (await texts.jsonValue()) as string[];
}

/** Saves a full-page screenshot as test-results/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/**
 * Waits until the page's CSS transitions and animations are over (two frames first, so a change just
 * made has started its transition). An animation cancelled meanwhile (its `finished` rejects with
 * AbortError) counts as over.
 */
export async function animationsDone(page: Page): Promise<void> {
  await page.evaluate(async () => {
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    await Promise.allSettled(document.getAnimations().map((a) => a.finished));
  });
}

/** Waits until the island holding `selector` is hydrated (Astro drops the island's `ssr` attribute). */
export async function hydrated(page: Page, selector: string): Promise<void> {
  await page.waitForSelector(`astro-island:not([ssr]) ${selector}`);
}

/**
 * Scrolls to the island holding `selector` (a `client:visible` one hydrates only when shown) and waits until it is
 * hydrated.
 */
export async function hydratedInView(page: Page, selector: string): Promise<void> {
  await page.locator(selector).first().scrollIntoViewIfNeeded();
  await hydrated(page, selector);
}

/** Fills the sign-in form already on the page, submits it and waits until the browser leaves /login. */
export async function submitLoginForm(page: Page, email: string, password: string): Promise<void> {
  await page.waitForLoadState('load'); // the form's script has run
  await page.fill('#email', email);
  await page.fill('#password', password);
  await Promise.all([page.waitForURL((url) => url.pathname !== '/login'), page.click('button[type=submit]')]);
}

/** Signs in through the login form and waits for the next page. */
export async function signInThroughForm(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/login`);
  await submitLoginForm(page, email, password);
}

/** The path and query of the page, e.g. '/login?url=settings'. */
export function location(page: Page): string {
  const url = new URL(page.url());
  return `${url.pathname}${url.search}`;
}

/** The ids of the top-navigation links (a[data-nav]) and side-menu links (a[data-menu]) on the page. */
export async function navigationIds(page: Page): Promise<{ top: string[]; side: string[] }> {
  return {
    top: await page.$$eval('[data-testid=top-nav] a[data-nav]', (links) =>
      links.map((a) => (a as HTMLElement).dataset.nav!),
    ),
    side: await page.$$eval('[data-testid=side-menu] a[data-menu]', (links) =>
      links.map((a) => (a as HTMLElement).dataset.menu!),
    ),
  };
}

// The page every console address answers while the database is unreachable. The fault
// suite (scripts/faults.mjs, case postgres) sees the service answer it during a real PostgreSQL
// stop; here Chromium checks the page itself at the three widths: readable, axe clean, and the
// answer's status and headers.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.ts';
import { checkPage, VIEWPORTS } from '../helpers/page-checks.ts';
import { unavailable } from '../../src/server/http/unavailable-page.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

describe('the "service temporarily unavailable" page', () => {
  it('answers 503 with Retry-After, never cached', async () => {
    const res = unavailable();
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('10');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
  });

  for (const [name, viewport] of Object.entries(VIEWPORTS)) {
    it(`reads well and passes axe at ${viewport.width} px (${name})`, async () => {
      const context = await browser.newContext({ viewport });
      try {
        const page = await context.newPage();
        await page.setContent(await unavailable().text());
        await expect(page.title()).resolves.toBe('Service temporarily unavailable');
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Service temporarily unavailable');
        expect(await page.locator('main p').first().textContent()).toContain('Nothing you entered was lost');
        await expect(page.getByRole('link', { name: 'Try again now' }).isVisible()).resolves.toBe(true);
        await checkPage(page, `service-unavailable-${viewport.width}`, ['[data-testid=unavailable]']);
      } finally {
        await context.close();
      }
    });
  }
});

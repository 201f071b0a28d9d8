// /docs/api in Chromium against the built service: the reference rendered from GET
// /v1/openapi.json, public (no session), every documented operation shown with its code samples,
// the example payloads of the delayed and complaint webhooks, nothing fetched from another origin,
// axe clean, fitting 1440 and 390 wide.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, location, openPage } from '../helpers/browser.ts';
import { checkPage, VIEWPORTS } from '../helpers/page-checks.ts';
import { prepareServer, type RunningServer } from '../helpers/server.ts';

let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  server = await prepareServer();
  await server.start();
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('/docs/api', () => {
  for (const [name, viewport] of [
    ['1440', VIEWPORTS.desktop],
    ['390', VIEWPORTS.phone],
  ] as const) {
    it(`shows every operation of the document signed out, from our origin only, at ${name}`, async () => {
      const doc = (await (await fetch(`${server.baseUrl}/v1/openapi.json`)).json()) as {
        paths: Record<string, Record<string, unknown>>;
      };
      const operations = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
      const { page, foreign, context } = await openPage(browser, server.baseUrl, { viewport });
      try {
        const scripts: string[] = [];
        page.on('request', (req) => {
          if (req.resourceType() === 'script') scripts.push(req.url());
        });
        await page.goto(`${server.baseUrl}/docs/api`);
        expect(location(page)).toBe('/docs/api');
        await expect.poll(() => page.locator('[data-testid=api-operation]').count()).toBeGreaterThanOrEqual(operations);
        expect(await page.locator('[data-testid=api-base-url]').textContent()).toBe(new URL(server.baseUrl).origin);
        // the send call carries curl, Node and Python; the Resend-compatible one the resend SDK too
        const send = page.locator('#post-v1-mail');
        expect(await send.locator('summary').allTextContents()).toEqual(['curl', 'Node (fetch)', 'Python (requests)']);
        expect(await page.locator('#post-v1-emails summary').allTextContents()).toContain('Node (resend SDK)');
        await send.locator('summary', { hasText: 'curl' }).click();
        await expect.poll(() => send.locator('pre', { hasText: 'Authorization: Bearer' }).isVisible()).toBe(true);
        expect(await page.locator('section[aria-labelledby=smtp]').textContent()).toMatch(/nodemailer[\s\S]*smtplib/);
        // the delayed and complaint webhooks show an example payload in either field set
        for (const type of ['delayed', 'complaint']) {
          const examples = page.locator(`#webhook--email-${type} [data-testid=webhook-example]`);
          expect(await examples.allTextContents()).toEqual([
            expect.stringContaining(`"type": "email.${type}"`),
            expect.stringContaining(`"event": "${type}"`),
          ]);
        }
        await page
          .locator('#webhook--email-delayed')
          .screenshot({ path: `test-results/api-reference-${name}-delayed.png` });
        // the full page is very tall: its first screen too, to look at
        await page.screenshot({ path: `test-results/api-reference-${name}-top.png` });
        await checkPage(page, `api-reference-${name}`, ['[data-testid=api-reference] h1', '#post-v1-mail']);
        expect(foreign).toEqual([]);
        expect(scripts.filter((url) => new URL(url).origin !== new URL(server.baseUrl).origin)).toEqual([]);
      } finally {
        await context.close();
      }
    }, 300_000); // axe over seventy operations takes a while on a loaded machine
  }
});

// The gallery as recipients see it: each system template rendered with
// its sample variables and its CSS inlined as publishing does, in Chromium at 600 px (a desktop
// client's reading pane) and 375 px (a phone), screenshots test-results/gallery-<key>-<width>.png
// to look at. Each must have a text part, read with images off, and be one column at 375 px.
import juice from 'juice';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile, render } from '../../src/server/templates/render.ts';
import { GALLERY } from '../../src/server/templates/gallery/templates.ts';
import { launchBrowser, screenshot } from '../helpers/browser.ts';
import { expectFitsViewport } from '../helpers/page-checks.ts';

let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchBrowser();
  // images off, as many clients start: nothing may depend on one loading
  const context = await browser.newContext({ javaScriptEnabled: false });
  await context.route('**/*', (route) => route.abort());
  page = await context.newPage();
});

afterAll(async () => {
  await browser?.close();
});

describe.each(GALLERY.map((t) => [t.key, t] as const))('gallery template %s', (key, template) => {
  const rendered = render(
    compile({ subject: template.subject, html: template.html, text: template.text }),
    template.sample,
  );
  // what the seed stores as published_html (src/server/templates/gallery/seed.ts)
  const html = juice(rendered.html, {
    preserveMediaQueries: true,
    applyWidthAttributes: true,
    applyHeightAttributes: false,
  });

  it('has a subject and a text part carrying every link of the HTML', () => {
    expect(rendered.subject?.trim()).toBeTruthy();
    expect(rendered.text.trim().length).toBeGreaterThan(80);
    const links = [...html.matchAll(/href="(https:[^"]+)"/g)].map((m) => m[1]);
    for (const link of links) expect(rendered.text, `text part lacks ${link}`).toContain(link);
  });

  it.each([600, 375])('reads with images off and fits %i px', async (width) => {
    await page.setViewportSize({ width, height: 900 });
    await page.setContent(html, { waitUntil: 'domcontentloaded' });
    const { images, text } = await page.evaluate(() => ({
      images: [...document.images].map((img) => img.getAttribute('alt') ?? ''),
      // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered, what a person reads
      text: document.body.innerText,
    }));
    for (const alt of images) expect(alt.trim(), 'an image without alt text').not.toBe('');
    // the heading (the subject's words) and the company's name are text, not pictures
    expect(text).toContain(String(template.sample.company_name));
    await expectFitsViewport(page, `gallery-${key}-${width}`);
    if (width === 375) {
      // one column: every column cell takes the row's whole width (the media query stacks them)
      const narrow = await page.evaluate(
        () =>
          [...document.querySelectorAll('.col')].filter(
            (el) => el.getBoundingClientRect().width < (el.parentElement?.getBoundingClientRect().width ?? 0) * 0.8,
          ).length,
      );
      expect(narrow).toBe(0);
    }
    await screenshot(page, `gallery-${key}-${width}`);
  });
});

// The accessibility check every browser test runs (tests/helpers/page-checks.ts) finds what it is
// there to find: on a page with known WCAG 2.1 AA failures it names them, on the same page mended
// it finds none, a second check of one document reuses the axe it injected, and a sandboxed frame
// that may run no script does not stop it.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.ts';
import { accessibilityProblems } from '../helpers/page-checks.ts';

let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchBrowser();
  page = await (await browser.newContext()).newPage();
});
afterAll(async () => {
  await browser?.close();
});

const FLAWED = `<!doctype html><html lang="en"><head><title>Flawed</title></head><body><main>
  <h1>Report</h1>
  <img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="20" height="20">
  <p style="color:#bbb;background:#fff">Pale text on white</p>
  <iframe sandbox="" title="preview" srcdoc="<p>preview</p>"></iframe>
</main></body></html>`;

describe('accessibilityProblems', () => {
  it('names the serious and critical violations of a page, with the elements', async () => {
    await page.setContent(FLAWED);
    const problems = await accessibilityProblems(page);
    const [alt, contrast] = [...problems].sort();
    expect(problems).toHaveLength(2);
    expect(alt).toMatch(/^critical image-alt: .*\n {2}img: /s);
    expect(contrast).toMatch(/^serious color-contrast: .*\n {2}p: .*contrast of 1\.\d+/s);
  });

  it('checks the same document again with the axe it injected, and finds the mended page clean', async () => {
    await page.evaluate(() => {
      document.querySelector('img')!.setAttribute('alt', 'logo');
      document.querySelector('p')!.style.color = '#333';
    });
    expect(await accessibilityProblems(page)).toEqual([]);
  });
});

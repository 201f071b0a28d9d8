// The checks every page gets in Chromium: axe-core for WCAG 2.1 AA (no serious or
// critical violation) and a layout that fits the viewport (no sideways scrolling of the document).
// One line per page in a test: `await checkPage(page, 'dashboard-390', ['[data-testid=page-title]'])`.
import axe from 'axe-core';
import type { Page } from 'playwright-core';
import { screenshot } from './browser.ts';

/** The viewports every page is checked at: desktop, tablet, phone. */
export const VIEWPORTS = {
  desktop: { width: 1440, height: 900 },
  tablet: { width: 768, height: 1024 },
  phone: { width: 390, height: 844 },
} as const;

/**
 * axe-core's own options: WCAG 2.0/2.1 A and AA, frames not entered (a sandboxed preview frame cannot
 * run axe; the frame element itself is still checked from the page), and only the violations
 * detailed (the passes are counted, not listed node by node).
 */
const AXE_OPTIONS: axe.RunOptions = {
  runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
  iframes: false,
  resultTypes: ['violations'],
};

/**
 * axe-core's serious and critical WCAG 2.0/2.1 A and AA violations on the page, as readable lines.
 * axe runs in the page itself, injected once per document. @axe-core/playwright, used before, opened
 * a new tab for every check to finish its run in and sent every pass back node by node: the two
 * longest browser files took 199 s (Chromium 197 s of CPU, the test process 87 s); this way 131 s
 * (Chromium 130 s, the test process 60 s).
 */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe.source);
  return page.evaluate(async (options) => {
    const { violations } = await (window as unknown as { axe: typeof axe }).axe.run(document, options);
    return violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => {
        // each element with axe's reason (for contrast: the two colours and the ratio)
        const nodes = v.nodes
          .slice(0, 6)
          .map((n) => `\n  ${n.target.join(' ')}: ${[...n.any, ...n.all].map((c) => c.message).join('; ')}`);
        return `${v.impact} ${v.id}: ${v.help} (${v.nodes.length} element(s))${nodes.join('')}`;
      });
  }, AXE_OPTIONS);
}

/**
 * accessibilityProblems on a page whose clock the test has stopped (withClockStopped): axe settles each
 * rule on a 0 ms timer, so the clock is moved on a millisecond at a time until it is done; a longer
 * timer (an alert's 2 s) stays pending meanwhile.
 */
async function accessibilityProblemsOnStoppedClock(page: Page): Promise<string[]> {
  let done = false;
  const run = accessibilityProblems(page).finally(() => {
    done = true;
  });
  while (!done) await page.clock.runFor(1);
  return run;
}

/** Throws listing every serious or critical axe violation. */
export async function expectAccessible(page: Page, label: string, clockStopped = false): Promise<void> {
  const problems = await (clockStopped ? accessibilityProblemsOnStoppedClock(page) : accessibilityProblems(page));
  if (problems.length > 0)
    throw new Error(`${label}: ${problems.length} accessibility violation(s):\n${problems.join('\n')}`);
}

/** Throws when the document is wider than the viewport (the page scrolls sideways). */
export async function expectFitsViewport(page: Page, label: string): Promise<void> {
  const { scroll, viewport, culprits } = await page.evaluate(() => {
    const width = window.innerWidth;
    // the outermost elements reaching past the right edge, to name in the error
    const past = (el: Element) => el.getBoundingClientRect().right > width + 0.5;
    const culprits = [...document.body.querySelectorAll('*')]
      .filter((el) => past(el) && !(el.parentElement && el.parentElement !== document.body && past(el.parentElement)))
      .slice(0, 5)
      .map(
        (el) =>
          `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}.${[...el.classList].join('.')} (right ` +
          `${Math.round(el.getBoundingClientRect().right)})`,
      );
    return { scroll: document.documentElement.scrollWidth, viewport: width, culprits };
  });
  if (scroll > viewport)
    throw new Error(`${label}: the document is ${scroll}px wide in a ${viewport}px viewport: ${culprits.join(', ')}`);
}

/**
 * Throws unless each selector matches an element that is shown and reaches into the viewport
 * horizontally (a page's main controls: not hidden, not pushed off to the side, not 0 px wide).
 */
export async function expectShown(page: Page, label: string, selectors: readonly string[]): Promise<void> {
  const width = page.viewportSize()?.width ?? Infinity;
  for (const selector of selectors) {
    const element = page.locator(selector).first();
    if (!(await element.isVisible())) throw new Error(`${label}: ${selector} is not shown`);
    const box = await element.boundingBox();
    if (!box || box.width < 1 || box.x >= width || box.x + box.width <= 0) {
      throw new Error(`${label}: ${selector} is outside the ${width}px viewport (${JSON.stringify(box)})`);
    }
  }
}

/**
 * axe, the viewport fit, the main controls shown, and a screenshot test-results/<name>.png to look at.
 * `clockStopped`: the test has stopped the page's clock (withClockStopped), which axe needs moved.
 */
export async function checkPage(
  page: Page,
  name: string,
  shown: readonly string[] = [],
  { clockStopped = false } = {},
): Promise<void> {
  await screenshot(page, name);
  await expectFitsViewport(page, name);
  await expectShown(page, name, shown);
  await expectAccessible(page, name, clockStopped);
}

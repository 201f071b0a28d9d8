// Picks a range in the console's date range calendar (flatpickr) by its days, as a person does: open
// the field, go back or forth a month with the calendar's arrows until the day shows, click it, then
// the same for the last day. Tests name the days relative to the today they set (the server's
// CONSOLE_TODAY and the page's clock) or read, never by their place in the calendar, so a test picks
// the same range on the 1st of a month as on the 20th.
import type { Page } from 'playwright-core';
import { type DayRange, formatRange } from '../../src/lib/dates.ts';

const OPEN = '.flatpickr-calendar.open';
/** The days of the months shown, not the greyed days of the months around them. */
const MONTH_DAYS = `${OPEN} .flatpickr-day:not(.prevMonthDay):not(.nextMonthDay)`;

/** The calendar's days as flatpickr holds them (local midnight), as 'YYYY-MM-DD', in order. */
function shownDays(page: Page): Promise<string[]> {
  return page.$$eval(MONTH_DAYS, (cells) =>
    cells.map((cell) => {
      const d = (cell as HTMLElement & { dateObj: Date }).dateObj;
      return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
    }),
  );
}

/**
 * Moves the open calendar until `day` is one of its months' days and returns the day's cell; null when
 * the arrow towards it is disabled (a month after today's).
 */
async function showDay(page: Page, day: string) {
  for (let moves = 0; moves < 400; moves++) {
    const days = await shownDays(page);
    const at = days.indexOf(day);
    if (at >= 0) return page.locator(MONTH_DAYS).nth(at);
    const arrow = page.locator(`${OPEN} ${day < days[0] ? '.flatpickr-prev-month' : '.flatpickr-next-month'}`);
    if ((await arrow.getAttribute('class'))?.split(/\s+/).includes('flatpickr-disabled')) return null;
    const first = days[0];
    await arrow.click();
    // the months have moved when their first day is another
    await page.waitForFunction(
      ([selector, before]) => {
        const d = (document.querySelector(selector) as (HTMLElement & { dateObj?: Date }) | null)?.dateObj;
        return d !== undefined && d.getDate() + 100 * (d.getMonth() + 1) + 10_000 * d.getFullYear() !== before;
      },
      [MONTH_DAYS, Number(first.replaceAll('-', ''))] as const,
    );
  }
  throw new Error(`the calendar never showed ${day}`);
}

/** Opens the calendar of the date range field `field` (it loads on the first click). */
export async function openCalendar(page: Page, field = '[data-testid=date-range]'): Promise<void> {
  await page.click(field);
  await page.locator(MONTH_DAYS).first().waitFor();
}

/** True when the open calendar shows `day` and it cannot be picked (after today). */
export async function dayDisabled(page: Page, day: string): Promise<boolean> {
  const cell = await showDay(page, day);
  return cell === null || ((await cell.getAttribute('class'))?.split(/\s+/).includes('flatpickr-disabled') ?? false);
}

/**
 * Picks `range` in the calendar of `field` (opened here when it is not open), waits until it has
 * closed and the field reads the range, and returns what the field reads.
 */
export async function pickRange(page: Page, range: DayRange, field = '[data-testid=date-range]'): Promise<string> {
  if (!(await page.locator(OPEN).count())) await openCalendar(page, field);
  for (const day of [range.start, range.end]) {
    const cell = await showDay(page, day);
    if (!cell) throw new Error(`${day} cannot be shown: it is after the last day that can be picked`);
    await cell.click();
  }
  await page.waitForSelector(OPEN, { state: 'detached' }).catch(() => page.waitForSelector(OPEN, { state: 'hidden' }));
  const expected = formatRange(range);
  await page.waitForFunction(
    ([selector, text]) => (document.querySelector(selector) as HTMLInputElement | null)?.value === text,
    [field, expected],
  );
  return expected;
}

// The date range on the days a calendar gets wrong (docs/console.md §9: the last 29 days through today,
// UTC days): today set to the 1st of a month (also the end of daylight saving time in New York), the last
// day of a month and of a year, 29 February, and the start of daylight saving time in New York. Today is
// set on both sides: the service renders its ranges for CONSOLE_TODAY and the page's clock stands at that
// day, once in UTC at noon and once in America/New_York at 03:30 UTC, the evening before in the
// browser's own zone. On the Dashboard, the Recipients tab and a group's Sent and Overview reports, the
// range the server rendered is the one the islands keep, days after today cannot be picked, and a range
// of one day and one that crosses into the month before are picked, sent to the API as those UTC days
// and drawn with no console or page error. The mail of this test is sent today, so every range here
// has no data: the charts draw their empty series.
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DayRange, addDays, formatRange, rangeEndingOn, rangeToUnix } from '../../src/lib/dates.ts';
import { FIRST_GROUP_QUERY, groupSearchBody } from '../../src/lib/group-query.ts';
import { chartsDrawn, launchBrowser, openPage, screenshot, signInThroughForm } from '../helpers/browser.ts';
import { dayDisabled, openCalendar, pickRange } from '../helpers/date-range.ts';
import { VIEWPORTS } from '../helpers/page-checks.ts';
import { apiSignIn } from '../helpers/report-traffic.ts';
import { createdId, prepareServer, type RunningServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';

const EMAIL = 'calendar@calendar.test';
const PASSWORD = 'calendar-password-123';
const DOMAIN = 'calendar.example';

/** The days, each with what makes it hard. */
const DAYS = [
  ['2026-11-01', 'the 1st of a month, and the end of daylight saving time in New York'],
  ['2025-12-31', 'the last day of a month and of a year'],
  ['2024-02-29', '29 February'],
  ['2026-03-08', 'the start of daylight saving time in New York'],
] as const;

/** Where the browser is and what its clock says on `day`. */
const ZONES = [
  { zone: 'UTC', at: (day: string) => `${day}T12:00:00Z` },
  // 03:30 UTC is the evening before in New York: the browser's local day is not the console's
  { zone: 'America/New_York', at: (day: string) => `${day}T03:30:00Z` },
] as const;

let server: RunningServer;
let sink: SmtpSink;
let browser: Browser;
let groupUuid: string;

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await prepareServer({ SMTP_RELAY_URL: sink.url });
  const enterprise = createdId(
    await server.admin('enterprise', 'create', '--name', 'Calendar Enterprise'),
    'enterprise',
  );
  await server.admin('customer', 'create', '--enterprise', String(enterprise), '--name', 'Calendar Customer');
  await server.admin(
    'user',
    'create',
    '--customer',
    'Calendar Customer',
    '--email',
    EMAIL,
    '--name',
    'Cal',
    '--password',
    PASSWORD,
  );
  await server.admin('domain', 'add', DOMAIN, '--customer', 'Calendar Customer', '--verified');
  const apiKey = /api key:\s+(\S+)/.exec(
    await server.admin('credentials', 'show', '--customer', 'Calendar Customer'),
  )![1];
  await server.start();
  // one message, so home is the Dashboard (docs/console.md §4) and there is a group to report on
  const sent = await fetch(`${server.baseUrl}/v1/mail`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      from: `desk@${DOMAIN}`,
      to: 'ann@people.example',
      subject: 'Hi',
      html: '<p>Hi</p>',
      group: 'Days',
    }),
  });
  if (sent.status !== 202) throw new Error(`POST /v1/mail: ${sent.status} ${await sent.text()}`);
  const groups = await fetch(`${server.baseUrl}/v1/transaction-groups/search`, {
    method: 'POST',
    headers: {
      'Request-Type': 'ui',
      Origin: server.baseUrl,
      Cookie: await apiSignIn(server.baseUrl, EMAIL, PASSWORD),
      'Content-Type': 'application/json',
    },
    body: JSON.stringify(groupSearchBody(FIRST_GROUP_QUERY)),
  });
  groupUuid = ((await groups.json()) as { data: { group_uuid: string }[] }).data[0].group_uuid;
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await sink?.close();
});

/** The range the field shows: as the server sent it (the value attribute of `html`), or live. */
function fieldText(page: Page, html?: string): Promise<string | null> {
  return page.evaluate((html) => {
    const doc = html === undefined ? document : new DOMParser().parseFromString(html, 'text/html');
    const input = doc.querySelector('[data-testid=date-range]') as HTMLInputElement | null;
    return html === undefined ? (input?.value ?? null) : (input?.getAttribute('value') ?? null);
  }, html);
}

/** The bodies of the page's POSTs to `path`, as they are sent. */
function posts(page: Page, path: string): Record<string, unknown>[] {
  const seen: Record<string, unknown>[] = [];
  page.on('request', (req: Request) => {
    if (req.method() === 'POST' && new URL(req.url()).pathname === path) seen.push(req.postDataJSON());
  });
  return seen;
}

/** The console pages with a date range, each with the call its range goes to and how a range reads there. */
const PAGES = [
  {
    name: 'dashboard',
    path: () => '/',
    call: '/v1/dashboard/overview',
    body: (r: DayRange) => ({ startDate: r.start, endDate: r.end }),
  },
  {
    name: 'recipients',
    path: () => '/groups#recipients',
    call: '/v1/transaction/search',
    body: (r: DayRange) => ({ startDate: r.start, endDate: r.end }),
  },
  {
    name: 'sent',
    path: () => `/groups/${groupUuid}/sent`,
    call: '/v1/transaction-groups/reports',
    body: (r: DayRange) => rangeToUnix(r),
  },
  {
    name: 'overview',
    path: () => `/groups/${groupUuid}/overview`,
    call: '/v1/transaction-groups/overview',
    body: (r: DayRange) => rangeToUnix(r),
  },
] as const;

describe.each(DAYS)('today %s (%s)', (today) => {
  beforeAll(async () => {
    await server.halt();
    await server.start({ CONSOLE_TODAY: today });
  }, 90_000);

  it.each(ZONES)(
    'in $zone: every range path renders, picks and draws without an error',
    async ({ zone, at }) => {
      // Date stands at that moment in the page; its timers (the charts' drawing) run as they do
      const tab = await openPage(browser, server.baseUrl, {
        viewport: VIEWPORTS.phone,
        timezoneId: zone,
        locale: 'de-DE',
        fixedTime: new Date(at(today)),
      });
      const { page } = tab;
      const errors: string[] = [];
      page.on('console', (msg) => {
        if (msg.type() === 'error') errors.push(`console: ${msg.text()} (${page.url()})`);
      });
      page.on('pageerror', (err) => errors.push(`pageerror: ${err.message} (${page.url()})`));
      try {
        await signInThroughForm(page, server.baseUrl, EMAIL, PASSWORD);
        for (const shown of PAGES) {
          const url = `${server.baseUrl}${shown.path()}`;
          const label = `${today} ${zone} ${shown.name}`;
          const html = await (await page.request.get(url)).text();
          const sent = posts(page, shown.call);
          await page.goto(url);
          await page.waitForSelector('astro-island:not([ssr]) [data-testid=date-range]');
          await page.waitForLoadState('networkidle');
          // the default range: the 29 days before today and today, as rendered and as kept
          const defaultRange = formatRange(rangeEndingOn(today));
          expect(await fieldText(page, html), label).toBe(defaultRange);
          expect(await fieldText(page), label).toBe(defaultRange);
          await openCalendar(page);
          expect(await dayDisabled(page, today), `${label}: today can be picked`).toBe(false);
          expect(await dayDisabled(page, addDays(today, 1)), `${label}: tomorrow cannot`).toBe(true);
          if (shown.name === 'dashboard') await screenshot(page, `calendar-${today}-${zone.replace('/', '-')}`);
          for (const range of [
            { start: today, end: today },
            { start: addDays(today, -3), end: today },
          ]) {
            sent.length = 0;
            expect(await pickRange(page, range), label).toBe(formatRange(range));
            await expect
              .poll(() => sent.length, { message: `${label}: ${shown.call} for ${formatRange(range)}` })
              .toBeGreaterThan(0);
            expect(sent.at(-1), `${label}: ${formatRange(range)}`).toMatchObject(shown.body(range));
            await page.waitForLoadState('networkidle');
            await chartsDrawn(page);
            expect(await fieldText(page), label).toBe(formatRange(range));
          }
          expect(errors, label).toEqual([]);
        }
      } finally {
        await tab.context.close();
      }
    },
    120_000,
  );
});

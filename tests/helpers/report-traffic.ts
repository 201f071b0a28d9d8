// A built server with real traffic for the browser tests of the Dashboard and Transactions pages:
// mail accepted by POST /v1/mail with the customer's API key, delivered by the worker into a local
// SMTP sink that refuses chosen recipients with 550, opened and clicked through the tracking links
// of the delivered copies, and one recipient refused at acceptance (suppressed by its bounce).
import { setTimeout as sleep } from 'node:timers/promises';
import { simpleParser } from 'mailparser';
import { PARENT } from './browser.ts';
import { createdId, prepareServer, type RunningServer } from './server.ts';
import { startSmtpSink, type SmtpSink } from './smtp-sink.ts';

export const PASSWORD = 'report-password-123';
/** May send; the customer with traffic. */
export const SENDER = 'sender@reports.test';
/** May not send (docs/console.md §6), same customer. */
export const VIEWER = 'viewer@reports.test';
/** May not send; a customer with nothing sent: the dashboard all the same (docs/console.md §4). */
export const EMPTY_VIEWER = 'viewer@empty.test';
/** May send; a customer with nothing sent and no domain: getting started. */
export const EMPTY_SENDER = 'sender@empty.test';
export const QUOTA = 1000;

/** Every seeded transaction, by recipient local part, oldest first. */
export const ORDERS = Array.from({ length: 8 }, (_, i) => `buyer${String(i + 1).padStart(2, '0')}`);
export const WELCOME = ['new01', 'new02', 'new03'];
export const BOUNCED = ['gone01', 'gone02'];
/** gone01 again, after its bounce suppressed it: failed at acceptance. */
export const SUPPRESSED = 'gone01-again';
export const DOMAIN = 'reports.example';
export const RECIPIENT_DOMAIN = 'people.example';

export const addressOf = (local: string) => `${local.replace('-again', '')}@${RECIPIENT_DOMAIN}`;

export interface ReportTraffic {
  server: RunningServer;
  sink: SmtpSink;
  /** Transaction uuids by recipient local part (SUPPRESSED for the refused one). */
  uuid: Record<string, string>;
  /** How many transactions were accepted, in all. */
  total: number;
  stop(): Promise<void>;
}

async function post(base: string, path: string, body: unknown, headers: Record<string, string>): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/** Signs in over the API and returns the Cookie header value. */
export async function apiSignIn(base: string, email: string, password = PASSWORD): Promise<string> {
  const res = await post(base, '/v1/auth/login', { email, password }, { 'Request-Type': 'ui', Origin: base });
  const cookie = /transact_session=[^;]+/.exec(res.headers.get('set-cookie') ?? '')?.[0];
  if (!cookie) throw new Error(`sign-in failed: ${res.status}`);
  return cookie;
}

async function waitUntil(what: string, probe: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The server, seeded: Orders (8 recipients, custom header X-Campaign, delivered; buyer01 opened and
 * clicked, buyer02 opened; buyer03 opened by Apple Mail Privacy Protection and its link checked with
 * HEAD, both machines', so it counts as neither opened nor clicked), Welcome (3 delivered, then 2
 * bounced with 550), Receipts (gone01 again, refused as suppressed). 14 transactions, accepted in
 * that order.
 */
export async function startReportTraffic(extraEnv: Record<string, string> = {}): Promise<ReportTraffic> {
  const sink = await startSmtpSink();
  for (const local of BOUNCED)
    sink.replies.set(addressOf(local), [550, `5.1.1 <${addressOf(local)}>: Recipient address rejected: User unknown`]);
  const server = await prepareServer({
    SMTP_RELAY_URL: sink.url,
    SYSTEM_FROM: 'Transact <no-reply@transact.test>',
    // as behind a reverse proxy: X-Forwarded-For is the client's address (Apple's proxy below)
    TRUST_PROXY: 'true',
    ...extraEnv,
  });
  const enterprise = createdId(
    await server.admin('enterprise', 'create', '--name', 'Reports Enterprise', '--parent-url', PARENT),
    'enterprise',
  );
  await server.admin(
    'customer',
    'create',
    '--enterprise',
    String(enterprise),
    '--name',
    'Reports Customer',
    '--quota',
    String(QUOTA),
  );
  await server.admin('customer', 'create', '--enterprise', String(enterprise), '--name', 'Empty Customer');
  await server.admin(
    'user',
    'create',
    '--customer',
    'Reports Customer',
    '--email',
    SENDER,
    '--name',
    'Report Sender',
    '--password',
    PASSWORD,
  );
  await server.admin(
    'user',
    'create',
    '--customer',
    'Reports Customer',
    '--email',
    VIEWER,
    '--name',
    'Report Viewer',
    '--password',
    PASSWORD,
    '--no-send',
  );
  await server.admin(
    'user',
    'create',
    '--customer',
    'Empty Customer',
    '--email',
    EMPTY_VIEWER,
    '--name',
    'Empty Viewer',
    '--password',
    PASSWORD,
    '--no-send',
  );
  await server.admin(
    'user',
    'create',
    '--customer',
    'Empty Customer',
    '--email',
    EMPTY_SENDER,
    '--name',
    'Empty Sender',
    '--password',
    PASSWORD,
  );
  await server.admin('domain', 'add', DOMAIN, '--customer', 'Reports Customer', '--verified');
  const apiKey = /api key:\s+(\S+)/.exec(
    await server.admin('credentials', 'show', '--customer', 'Reports Customer'),
  )![1];
  await server.start();
  const base = server.baseUrl;

  // opens and clicks are tracked for this customer (Settings' toggles, docs/console.md §2)
  const cookie = await apiSignIn(base, SENDER);
  for (const option of ['track_opens', 'track_links']) {
    const res = await post(
      base,
      '/v1/ui-settings',
      { [option]: true },
      { 'Request-Type': 'ui', Origin: base, Cookie: cookie },
    );
    if (!res.ok) throw new Error(`POST /v1/ui-settings ${option}: ${res.status}`);
  }

  const uuid: Record<string, string> = {};
  const send = async (group: string, locals: string[], extra: Record<string, unknown> = {}) => {
    const res = await post(
      base,
      '/v1/mail',
      {
        from: { email: `news@${DOMAIN}`, name: 'News Desk' },
        to: locals.map(addressOf),
        subject: `${group} for you`,
        html: `<p>Hello from ${group}. <a href="https://${DOMAIN}/${group.toLowerCase()}">See more</a></p>`,
        group,
        ...extra,
      },
      { Authorization: `Bearer ${apiKey}` },
    );
    if (res.status !== 202) throw new Error(`POST /v1/mail: ${res.status} ${await res.text()}`);
    const data = ((await res.json()) as { data: { trans_uuid: string }[] }).data;
    for (const [i, local] of locals.entries()) uuid[local] = data[i].trans_uuid;
  };
  await send('Orders', ORDERS, { headers: { 'X-Campaign': 'spring' } });
  await send('Welcome', WELCOME);
  await send('Welcome', BOUNCED);
  // the worker delivers 11 and bounces 2; the hard bounce suppresses gone01
  await waitUntil('11 deliveries', async () => sink.messages.length >= ORDERS.length + WELCOME.length);
  const search = async (body: Record<string, unknown>) => {
    const res = await post(base, '/v1/transaction/search', body, {
      'Request-Type': 'ui',
      Origin: base,
      Cookie: cookie,
    });
    return (await res.json()) as {
      data: { trans_uuid: string; trans_read_count: number; trans_click_count: number; trans_date_sent: number }[];
      meta: { total: number };
    };
  };
  await waitUntil('the bounces', async () => (await search({ reportType: 'bounced' })).meta.total === BOUNCED.length);
  await waitUntil(
    'every delivery recorded',
    async () => (await search({ message_status: 'delivered' })).meta.total === ORDERS.length + WELCOME.length,
  );
  await send('Receipts', ['gone01'], {});
  uuid[SUPPRESSED] = uuid.gone01;
  delete uuid.gone01;
  // the first bounce's uuid is the one sent in Welcome
  uuid.gone01 = (await search({ transaction_search_string: addressOf('gone01'), order: 'asc' })).data[0].trans_uuid;

  const tracked = async (local: string) => {
    const html = String((await simpleParser(sink.messages.find((m) => m.to.includes(addressOf(local)))!.raw)).html);
    return {
      pixel: /src="([^"]*\/t\/o\/[^"]+)"/.exec(html)![1],
      link: /href="([^"]*\/t\/c\/[^"]+)"/.exec(html)![1],
    };
  };
  // machines, not people (src/server/tracking/machine-rules.ts): Apple Mail Privacy Protection fetches
  // buyer03's pixel from Apple's network, and a link checker sends HEAD for its link
  const buyer03 = await tracked('buyer03');
  await fetch(buyer03.pixel, { headers: { 'User-Agent': 'Mozilla/5.0', 'X-Forwarded-For': '17.58.63.1' } });
  await fetch(buyer03.link, { method: 'HEAD', redirect: 'manual', headers: { 'X-Forwarded-For': '40.107.22.45' } });
  // buyer01 opens and clicks, buyer02 opens: the pixel and the link of their delivered copies. A click
  // less than 5 s after delivery is a link scanner's, so buyer01's is sent once 5 s have passed since
  // the delivery the service recorded (in whole seconds: the next second's start, plus 5 s), however
  // late a loaded machine recorded it
  const row = async (id: string) => (await search({ transaction_search_string: id })).data[0];
  let sentAt = 0;
  await waitUntil('buyer01 recorded as sent', async () => {
    sentAt = (await row(uuid.buyer01)).trans_date_sent;
    return sentAt > 0;
  });
  await sleep((sentAt + 1 + 5) * 1000 - Date.now());
  for (const [local, click] of [
    ['buyer01', true],
    ['buyer02', false],
  ] as const) {
    const { pixel, link } = await tracked(local);
    await fetch(pixel, { headers: { 'User-Agent': 'Mozilla/5.0 (ReportTraffic)' } });
    if (click) await fetch(link, { redirect: 'manual', headers: { 'User-Agent': 'Mozilla/5.0 (ReportTraffic)' } });
  }
  await waitUntil('the opens and clicks', async () => {
    const [b1, b2] = [await row(uuid.buyer01), await row(uuid.buyer02)];
    return b1.trans_read_count > 0 && b1.trans_click_count > 0 && b2.trans_read_count > 0;
  });
  // the machines' hits were written before the people's (one recorder, in order): buyer03 stays unread
  const b3 = await row(uuid.buyer03);
  if (b3.trans_read_count !== 0 || b3.trans_click_count !== 0) throw new Error('a machine was counted as a person');

  return {
    server,
    sink,
    uuid,
    total: ORDERS.length + WELCOME.length + BOUNCED.length + 1,
    async stop() {
      await server.stop();
      await sink.close();
    },
  };
}

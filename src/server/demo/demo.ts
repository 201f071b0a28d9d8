// `npm run demo`: a separate demo account (enterprise 'Demo Enterprise', customer 'Demo Shop', a
// user and a verified domain) with 30 days of history, so the console has something to show.
// Every step goes through the code that records real traffic — accept() for sending, the worker's
// recordOutcomes for delivery (with deferrals), recordBounce for DSNs, receiveComplaint for
// feedback-loop reports, the tracking recorder for opens and clicks (Apple Mail's proxy among them,
// a machine's), unsubscribe() — all through the lifecycle (lifecycle/), each told the historical
// moment it happened, so the daily_stats rollups and the rows they count agree exactly as they do
// for real mail. Nothing is sent over SMTP: the plan says
// what each remote server answered, and recipients are at reserved domains (RFC 2606, RFC 6761).
import { performance } from 'node:perf_hooks';
import { formatUnix } from '../../lib/dates.ts';
import { formatCount } from '../../lib/numbers.ts';
import type { AppContext } from '../core/context.ts';
import type { Figures } from '../../lib/figures.ts';
import { figuresOfSlice } from '../stats/figures.ts';
import { bootstrapAdmin, type BootstrapResult, createUser } from '../accounts/accounts.service.ts';
import * as accounts from '../accounts/accounts.repository.ts';
import type { ParsedBounce } from '../bounces/parse-dsn.ts';
import { recordBounce } from '../bounces/receiver.ts';
import { type ReceivedReport, receiveComplaint } from '../bounces/complaints.service.ts';
import { ensureCredentials } from '../credentials/credentials.service.ts';
import { randomToken } from '../core/crypto.ts';
import type { ClaimedTransaction } from '../delivery/queue.repository.ts';
import { loadMessages } from '../delivery/queue.repository.ts';
import { replyCodeIn } from '../delivery/remote-answer.ts';
import { classifyReply, nextAttemptAt, refusalOf } from '../delivery/smtp-reply.ts';
import { type Outcome, recordOutcomes, type SendResult } from '../delivery/worker.ts';
import { addDomain } from '../domains/domains.service.ts';
import { DomainError } from '../core/errors.ts';
import { clearLookupCaches } from '../core/lookup-cache.ts';
import { accept, prepare, type PreparedMessage } from '../sending/sending.service.ts';
import { flushTracking, recordClick, recordOpen, resolveClick, trackedContent } from '../tracking/tracking.service.ts';
import { unsubscribe } from '../unsubscribe/unsubscribe.service.ts';
import {
  DEMO_DOMAIN,
  type Attempt,
  type DemoGroup,
  type DemoRecipient,
  type Fate,
  fateOf,
  messageBody,
  pickGroup,
  recipients,
  seededRandom,
  sendTimes,
} from './demo-content.ts';
import { claimByUuids, deleteDemoAccount, findDemoAccount } from './demo.repository.ts';
import { inTransaction } from '../core/transaction.ts';

export const DEMO_ENTERPRISE = 'Demo Enterprise';
export const DEMO_CUSTOMER = 'Demo Shop';
export const DEMO_USER_EMAIL = `demo@${DEMO_DOMAIN}`;
export const DEFAULT_DEMO_TRANSACTIONS = 30_000;

export interface DemoOptions {
  /** Messages to send over the period (one recipient each). */
  transactions: number;
  /** Days of history, ending today (UTC). */
  days?: number;
  /** Delete an existing demo account and fill a new one; without it an existing one is refused. */
  replace?: boolean;
  /** Seed of the plan: the same seed and count give the same history. */
  seed?: number;
  /** Progress lines (the CLI writes them to stderr). */
  progress?: (line: string) => void;
}

export interface DemoSummary {
  enterpriseId: number;
  customerId: number;
  email: string;
  password: string;
  domain: string;
  /** The administrator an empty database got first (as the first start would have created). */
  admin: BootstrapResult;
  replaced: boolean;
  /** The account's figures once its history is recorded, read as the console reads them (stats/figures.ts). */
  figures: Figures;
  /** What was recorded, by outcome (from the plan as the service took it). */
  counts: {
    transactions: number;
    delivered: number;
    hardBounces: number;
    softBounces: number;
    failed: number;
    /** People's opens; Apple Mail Privacy Protection's are machineOpens. */
    opens: number;
    machineOpens: number;
    clicks: number;
    unsubscribes: number;
    /** Spam complaints from feedback loops (the recipient suppressed, origin complaint). */
    complaints: number;
  };
  seconds: number;
}

const HOUR_MS = 3_600_000;
/**
 * Each window's accepted mail is delivered, then the window's later events (DSNs, opens, clicks, unsubscribes) are
 * recorded.
 */
const WINDOW_MS = 6 * HOUR_MS;
const ACCEPT_CHUNK = 1000;
const RECORD_CHUNK = 500;

interface Planned {
  n: number;
  queuedAt: Date;
  group: DemoGroup;
  to: DemoRecipient;
  fate: Fate;
}

/** A delivery attempt due: the transaction as claimed, and when the remote answers. */
interface Due {
  plan: Planned;
  tx: ClaimedTransaction;
  attempt: number;
  at: Date;
}

/** Something that happens after delivery, in time order with the others. */
type Later =
  | { at: Date; kind: 'bounce'; uuid: string; to: string; messageId: string; type: 'hard' | 'soft' }
  | { at: Date; kind: 'open'; uuid: string; machine?: true }
  | { at: Date; kind: 'click'; token: string }
  | { at: Date; kind: 'unsubscribe'; uuid: string }
  | { at: Date; kind: 'complaint'; uuid: string; messageId: string };

/** Apple Mail Privacy Protection's proxy: Apple's network and the bare agent (tracking/machine-rules.ts). */
const APPLE_MAIL_PROXY = { ip: '17.58.63.1', userAgent: 'Mozilla/5.0' };

const CLIENTS = [
  {
    ip: '203.0.113.24',
    userAgent:
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
  },
  {
    ip: '198.51.100.7',
    userAgent:
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
  },
  {
    ip: '192.0.2.80',
    userAgent:
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 ' +
      '(KHTML, like Gecko) Version/17.5 Safari/605.1.15',
  },
  {
    ip: '203.0.113.151',
    userAgent:
      'Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36',
  },
];

/** A DSN as parse-dsn.ts would read it from the remote's report (RFC 3464). */
function dsn(to: string, messageId: string, type: 'hard' | 'soft'): ParsedBounce {
  const [status, diagnostic] =
    type === 'hard'
      ? ['5.1.1', 'smtp; 550 5.1.1 The email account that you tried to reach does not exist']
      : ['5.2.2', 'smtp; 552 5.2.2 Mailbox full: the recipient is over quota'];
  return {
    isReport: true,
    recipients: [{ finalRecipient: to, originalRecipient: null, action: 'failed', status, diagnosticCode: diagnostic }],
    text: 'Your message could not be delivered.',
    perMessage: { 'reporting-mta': `dns; mx.${to.split('@')[1]}` },
    originalMessageId: messageId,
    feedback: null,
    original: null,
  };
}

/** The click tokens of a tracked HTML body, in the order of its links. */
function clickTokens(html: string | null): string[] {
  return [...new Set([...(html ?? '').matchAll(/\/t\/c\/([A-Za-z0-9_-]{22})/g)].map((m) => m[1]))];
}

/** What one run carries from step to step. */
interface Run {
  ctx: AppContext;
  random: () => number;
  now: Date;
  counts: DemoSummary['counts'];
  /** Events after delivery not yet recorded, each at its moment. */
  later: Later[];
}

/**
 * Creates the demo account and records its history. Refuses (DomainError 'conflict') when a demo
 * account exists, unless `replace` is set: then the old one is deleted first, all of it.
 */
export async function fillDemo(ctx: AppContext, opts: DemoOptions): Promise<DemoSummary> {
  const started = performance.now();
  const progress = opts.progress ?? (() => {});
  const random = seededRandom(opts.seed ?? 20240601);
  const now = new Date();

  const existing = await findDemoAccount(ctx.db, DEMO_ENTERPRISE, DEMO_CUSTOMER);
  if (existing && !opts.replace) {
    throw new DomainError(
      'conflict',
      `A demo account exists already (customer ${existing.customerId} '${DEMO_CUSTOMER}'); run \`npm run demo -- ` +
        `--replace\` to delete it with all its history and fill a new one`,
    );
  }
  // an empty database gets the administrator the first start would create (it creates none once users exist)
  const admin = await bootstrapAdmin(ctx);
  if (existing) {
    progress(`demo: deleting the previous demo account (customer ${existing.customerId})…`);
    await inTransaction(ctx.db, (trx) => deleteDemoAccount(trx, existing));
    clearLookupCaches(ctx);
  }
  const account = await createDemoAccount(ctx, opts.transactions);
  const plans = planMail(ctx, random, opts.transactions, opts.days ?? 30, now);
  const run: Run = { ctx, random, now, counts: noCounts(), later: [] };
  await playHistory(run, account.customerId, plans, progress);

  return {
    enterpriseId: account.enterpriseId,
    customerId: account.customerId,
    email: DEMO_USER_EMAIL,
    password: account.password,
    domain: DEMO_DOMAIN,
    admin,
    replaced: existing !== undefined,
    figures: await figuresOfSlice(ctx.db, account.customerId, { groupId: null, firstDay: null, lastDay: null }),
    counts: run.counts,
    seconds: Math.round((performance.now() - started) / 100) / 10,
  };
}

/** The enterprise, the customer (its quota above the plan), its credentials, the user and the verified domain. */
async function createDemoAccount(
  ctx: AppContext,
  transactions: number,
): Promise<{ enterpriseId: number; customerId: number; password: string }> {
  const enterprise = await accounts.insertEnterprise(ctx.db, { name: DEMO_ENTERPRISE, header_colour: '#1f6f5c' });
  const quota = Math.max(50_000, Math.ceil((transactions * 1.25) / 10_000) * 10_000);
  const customer = await accounts.insertCustomer(ctx.db, {
    enterprise_id: enterprise.id,
    name: DEMO_CUSTOMER,
    monthly_quota: quota,
  });
  await ensureCredentials(ctx, ctx.db, customer.id);
  const password = randomToken(12);
  await createUser(ctx, {
    customerId: customer.id,
    email: DEMO_USER_EMAIL,
    name: 'Demo User',
    password,
    permissions: 'all',
  });
  await addDomain(ctx, customer.id, DEMO_DOMAIN, { verified: true });
  return { enterpriseId: enterprise.id, customerId: customer.id, password };
}

/** Who gets which message when, and what becomes of it, over `days` ending two minutes before `now`. */
function planMail(ctx: AppContext, random: () => number, transactions: number, days: number, now: Date): Planned[] {
  const people = recipients(random, Math.max(50, Math.round(transactions * 0.35)));
  const latest = new Date(now.getTime() - 2 * 60_000);
  return sendTimes(random, transactions, days, latest).map((queuedAt, i) => {
    const group = pickGroup(random);
    // a few people get much of the mail (regular customers), most get a message or two
    const to = people[Math.floor(random() ** 1.6 * people.length)];
    return {
      n: 10_400 + i,
      queuedAt,
      group,
      to,
      fate: fateOf(random, group, to, queuedAt, now, ctx.config.retryMaxHours),
    };
  });
}

function noCounts(): DemoSummary['counts'] {
  return {
    transactions: 0,
    delivered: 0,
    hardBounces: 0,
    softBounces: 0,
    failed: 0,
    opens: 0,
    machineOpens: 0,
    clicks: 0,
    unsubscribes: 0,
    complaints: 0,
  };
}

/**
 * Window by window: the window's mail is accepted and delivered, then what follows delivery
 * (DSNs, opens, clicks, unsubscribes) is recorded up to the window's end, so a recipient who
 * bounced or unsubscribed is suppressed for the mail after it.
 */
async function playHistory(
  run: Run,
  customerId: number,
  plans: Planned[],
  progress: (line: string) => void,
): Promise<void> {
  const now = run.now.getTime();
  let next = 0;
  let reported = 0;
  const firstWindow = plans.length > 0 ? Math.floor(plans[0].queuedAt.getTime() / WINDOW_MS) * WINDOW_MS : now;
  for (let start = firstWindow; start <= now; start += WINDOW_MS) {
    const end = start + WINDOW_MS;
    const batch: Planned[] = [];
    while (next < plans.length && plans[next].queuedAt.getTime() < end) batch.push(plans[next++]);
    for (let i = 0; i < batch.length; i += ACCEPT_CHUNK)
      await deliver(run, await send(run, customerId, batch.slice(i, i + ACCEPT_CHUNK)));
    await recordLaterUntil(run, end);

    if (next > reported && (next - reported >= plans.length / 20 || next === plans.length)) {
      progress(
        `demo: ${formatCount(next)} of ${formatCount(plans.length)} transactions, up to ` +
          `${formatUnix(Math.min(end, now) / 1000, 'YYYY-MM-DD HH:mm')} UTC`,
      );
      reported = next;
    }
  }
}

/** Records, in time order, the events after delivery that happen before `end`. */
async function recordLaterUntil(run: Run, end: number): Promise<void> {
  run.later.sort((a, b) => a.at.getTime() - b.at.getTime());
  let due = 0;
  while (due < run.later.length && run.later[due].at.getTime() < end) due++;
  for (const event of run.later.splice(0, due)) await recordLater(run, event);
  await flushTracking(run.ctx);
}

/**
 * Accepts a chunk through accept() (one commit), each message at its own time; returns the queued ones, claimed for
 * their first attempt.
 */
async function send(run: Run, customerId: number, chunk: Planned[]): Promise<Due[]> {
  const { ctx } = run;
  const prepared: PreparedMessage[] = [];
  for (const plan of chunk) {
    const { subject, html, text } = messageBody(plan.group, plan.n, plan.to.name);
    const message = await prepare(ctx, customerId, {
      from: plan.group.from,
      to: [{ email: plan.to.email, name: plan.to.name }],
      cc: [],
      bcc: [],
      replyTo: [],
      subject,
      html,
      text,
      headers: plan.group.headers?.(plan.n) ?? {},
      attachments: [],
      group: plan.group.name,
      tags: [],
      metadata: { order: plan.n },
    });
    prepared.push({ ...message, queuedAt: plan.queuedAt });
  }
  const accepted = await accept(ctx, customerId, prepared);
  run.counts.transactions += chunk.length;
  const planOf = new Map<string, Planned>();
  accepted.forEach(([recipient], i) => {
    if (recipient.status === 'queued') planOf.set(recipient.trans_uuid, chunk[i]);
    else run.counts.failed++; // suppressed by an earlier bounce or unsubscribe
  });
  const claimed = await claimByUuids(ctx.db, [...planOf.keys()], ctx.config.deliveryLeaseSeconds);
  return claimed.map((tx) => {
    const plan = planOf.get(tx.uuid)!;
    return { plan, tx, attempt: 0, at: new Date(plan.queuedAt.getTime() + plan.fate.firstAttemptSeconds * 1000) };
  });
}

/**
 * Records every attempt of the claimed transactions as the worker does: the tracked content (its
 * links stored) for the attempt that is taken, then recordOutcomes; a deferred one is claimed
 * again for its next attempt, until it is delivered or its retry window closes (a soft bounce).
 */
async function deliver(run: Run, due: Due[]): Promise<void> {
  const { ctx, counts } = run;
  let round = due;
  while (round.length > 0) {
    const retries = new Map<string, Omit<Due, 'tx'>>();
    for (let i = 0; i < round.length; i += RECORD_CHUNK) {
      const slice = round.slice(i, i + RECORD_CHUNK);
      const attemptOf = (d: Due) => d.plan.fate.attempts[Math.min(d.attempt, d.plan.fate.attempts.length - 1)];
      // The worker rewrites every message for tracking (and stores its links) before sending it. Here
      // only messages whose links will be clicked need that: for the others it would store rows
      // nothing reads (an open needs no link), at about half the run's time.
      const tracked = slice.filter((d) => attemptOf(d).kind === 'delivered' && d.plan.fate.clicks.length > 0);
      const messages = new Map(
        (
          await loadMessages(
            ctx.db,
            tracked.map((d) => d.tx.message_id),
          )
        ).map((m) => [Number(m.id), m]),
      );
      const outcomes: Outcome[] = [];
      for (const d of slice) {
        const attempt = attemptOf(d);
        outcomes.push({ tx: d.tx, result: resultOf(attempt), at: d.at });
        if (attempt.kind === 'delivered') {
          const message = messages.get(d.tx.message_id);
          const tokens = message ? clickTokens((await trackedContent(ctx, d.tx, message)).html) : [];
          counts.delivered++;
          scheduleAfterDelivery(run, d, tokens);
        } else if (attempt.kind === 'permanent') {
          counts.hardBounces++;
        } else {
          // the same schedule recordOutcomes applies; the worker claims a due row within seconds
          const nextAt = nextAttemptAt({
            attempts: d.tx.attempts,
            queuedAt: d.tx.queued_at,
            now: d.at,
            maxHours: ctx.config.retryMaxHours,
          });
          if (nextAt)
            retries.set(d.tx.uuid, {
              plan: d.plan,
              attempt: d.attempt + 1,
              at: new Date(nextAt.getTime() + 1000 + run.random() * 4000),
            });
          else counts.softBounces++;
        }
      }
      await recordOutcomes(ctx, outcomes);
    }
    const claimed = await claimByUuids(ctx.db, [...retries.keys()], ctx.config.deliveryLeaseSeconds);
    round = claimed.map((tx) => ({ ...retries.get(tx.uuid)!, tx }));
  }
}

/** What the worker makes of a planned answer: a refusal gets the verdict a real reply would (smtp-reply.ts). */
function resultOf(attempt: Attempt): SendResult {
  if (attempt.kind === 'delivered') return attempt;
  return refusalOf(classifyReply(replyCodeIn(attempt.reply) ?? undefined, attempt.reply), attempt.reply);
}

/** Puts what follows a delivery (a DSN, opens, clicks, an unsubscribe) on the timeline, if it has happened by now. */
function scheduleAfterDelivery(run: Run, d: Due, tokens: string[]): void {
  const delivered = d.at.getTime();
  const { fate } = d.plan;
  const at = (offsetMs: number) => new Date(delivered + offsetMs);
  const add = (event: Later) => {
    if (event.at <= run.now) run.later.push(event);
  };
  if (fate.laterBounce) {
    add({
      at: at(fate.laterBounce.afterMinutes * 60_000),
      kind: 'bounce',
      uuid: d.tx.uuid,
      to: d.tx.to_email,
      messageId: d.tx.message_id_header,
      type: fate.laterBounce.type,
    });
    return;
  }
  if (fate.proxyOpenAfterMs !== null)
    add({ at: at(fate.proxyOpenAfterMs), kind: 'open', uuid: d.tx.uuid, machine: true });
  for (const afterMs of fate.opens) add({ at: at(afterMs), kind: 'open', uuid: d.tx.uuid });
  for (const click of fate.clicks)
    if (tokens[click.link]) add({ at: at(click.afterMs), kind: 'click', token: tokens[click.link] });
  if (fate.unsubscribeAfterMs !== null) add({ at: at(fate.unsubscribeAfterMs), kind: 'unsubscribe', uuid: d.tx.uuid });
  if (fate.complaintAfterMs !== null)
    add({ at: at(fate.complaintAfterMs), kind: 'complaint', uuid: d.tx.uuid, messageId: d.tx.message_id_header });
}

/** A feedback loop's report (RFC 5965) as arf.ts reads it: Yahoo's, about one of our messages. */
function complaintReport(messageId: string, deliveredAt: Date): ReceivedReport {
  return {
    originalMessageId: messageId,
    feedback: {
      feedbackType: 'abuse',
      userAgent: 'Yahoo!-Mail-Feedback/2.0',
      originalMailFrom: null,
      originalRcptTo: null,
      arrivalDate: deliveredAt.toISOString(),
    },
  };
}

/** Records one event after delivery through the path a real one takes. */
async function recordLater(run: Run, event: Later): Promise<void> {
  const { ctx, counts } = run;
  const client = CLIENTS[Math.floor(run.random() * CLIENTS.length)];
  switch (event.kind) {
    case 'bounce': {
      // as the bounce receiver does with a DSN to the VERP address
      if ((await recordBounce(ctx, event.uuid, dsn(event.to, event.messageId, event.type), event.at)) !== 'recorded')
        return;
      if (event.type === 'hard') counts.hardBounces++;
      else counts.softBounces++;
      return;
    }
    case 'open':
      // as GET /t/o/<token>, once the token is verified; the proxy's fetch is a machine's open
      recordOpen(ctx, event.uuid, event.machine ? APPLE_MAIL_PROXY : client, event.at);
      if (event.machine) counts.machineOpens++;
      else counts.opens++;
      return;
    case 'click': {
      // as GET /t/c/<token>: the link the token names, then the buffered hit
      const link = await resolveClick(ctx, event.token);
      if (!link) return;
      recordClick(ctx, link, client, event.at);
      counts.clicks++;
      return;
    }
    case 'unsubscribe':
      await unsubscribe(ctx, event.uuid, run.random() < 0.6 ? 'one_click' : 'page', event.at);
      counts.unsubscribes++;
      return;
    case 'complaint':
      // as the bounce receiver does with a feedback loop's report mailed to the VERP address
      if (
        (await receiveComplaint(ctx, event.uuid, complaintReport(event.messageId, event.at), event.at)) ===
        'complaint_recorded'
      )
        counts.complaints++;
      return;
  }
}

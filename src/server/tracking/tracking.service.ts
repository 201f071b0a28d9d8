// Open and click tracking (issue 5). At delivery, a message of a customer with tracking on gets
// tracking links and a pixel (tokens only: HMACs under TRANSACT_SECRET, so none can be forged or
// pointed at another transaction). When the recipient's client fetches them, each hit is buffered
// and written in batches: a burst of pixel loads is one database transaction, not one each.
import { createHmac } from 'node:crypto';
import type { AppContext } from '../core/context.ts';
import { BatchWriter } from '../db/batch-writer.ts';
import { GroupWrite } from '../db/group-write.ts';
import { safeEqual } from '../core/crypto.ts';
import { insertEvents, type NewEvent } from '../events/events.repository.ts';
import { bumpDailyStats, statDay, type StatDelta } from '../stats/stats.repository.ts';
import { bumpLinkStats } from '../reports/link-stats.repository.ts';
import { rewriteTextParts } from '../message/raw-mime.ts';
import {
  hasNotrackMarker,
  insertOpenPixel,
  type RewriteOptions,
  rewriteHtmlLinks,
  rewriteTextLinks,
} from '../message/tracking-rewrite.ts';
import {
  addLinkClicks,
  addTransactionHits,
  type CounterDelta,
  type FoundLink,
  findLink,
  insertLinks,
  type NewLink,
  transactionsByUuid,
} from './tracking.repository.ts';
import { inTransaction } from '../core/transaction.ts';

const MAC_CHARS = 22; // 132 bits of HMAC-SHA256, base64url

function mac(secret: string, purpose: string, value: string): string {
  return createHmac('sha256', secret).update(`${purpose}:${value}`).digest('base64url').slice(0, MAC_CHARS);
}

const hexId = (uuid: string) => uuid.replace(/-/g, '').toLowerCase();

/** The open token of a transaction: its uuid (32 hex) and an HMAC of it, dot-separated. */
export function openToken(secret: string, transactionUuid: string): string {
  const id = hexId(transactionUuid);
  return `${id}.${mac(secret, 'open', id)}`;
}

/** The transaction uuid an open token names, or null when the token is not one of ours. */
export function verifyOpenToken(secret: string, token: string): string | null {
  const m = /^([0-9a-f]{32})\.([A-Za-z0-9_-]{22})$/.exec(token);
  if (!m || !safeEqual(mac(secret, 'open', m[1]), m[2])) return null;
  const id = m[1];
  return `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`;
}

/**
 * The click token of a URL in a transaction's message: derived, not random, so a retried delivery
 * produces the same tokens (and `insert … on conflict do nothing` no duplicate rows); the same URL
 * twice in one message is one link.
 */
export function linkToken(secret: string, transactionUuid: string, url: string): string {
  return mac(secret, 'link', `${hexId(transactionUuid)}\n${url}`);
}

export interface TrackableMessage {
  html: string | null;
  text: string | null;
  raw: Buffer | null;
  track_opens: boolean;
  track_links: boolean;
}

/** A message's content as it is sent. */
export interface TrackedContent {
  html: string | null;
  text: string | null;
  raw: Buffer | null;
}

/**
 * Rewrites a message for one recipient under the customer's tracking settings at delivery time, and
 * stores its links before it is sent (so a click can never arrive before its row). With tracking
 * off the content is sent as stored, except that `+notrack` markers still become plain http(s).
 */
const linkWriters = new WeakMap<AppContext, GroupWrite<NewLink>>();

/** The messages being composed at the same time store their links in one insert (db/group-write.ts). */
function linkWriterOf(ctx: AppContext): GroupWrite<NewLink> {
  let writer = linkWriters.get(ctx);
  if (!writer) {
    writer = new GroupWrite((links) => insertLinks(ctx.db, links));
    linkWriters.set(ctx, writer);
  }
  return writer;
}

export async function trackedContent(
  ctx: AppContext,
  tx: { id: number; uuid: string; customer_id: number },
  message: TrackableMessage,
): Promise<TrackedContent> {
  const { publicUrl, secret } = ctx.config;
  const trackingUrl = ctx.config.trackingUrl ?? publicUrl;
  // PGlite hands bytea back as a plain Uint8Array (pg as a Buffer): a Buffer view of the same bytes
  const raw = message.raw && Buffer.from(message.raw.buffer, message.raw.byteOffset, message.raw.byteLength);
  const stored = { html: message.html, text: message.text, raw };
  if (!message.track_opens && !message.track_links) {
    const marked = raw
      ? hasNotrackMarker(raw.toString('latin1'))
      : hasNotrackMarker(`${message.html ?? ''}${message.text ?? ''}`);
    if (!marked) return stored;
  }

  const links = new Map<string, NewLink>();
  const opts: RewriteOptions = { publicUrl };
  if (message.track_links) {
    opts.track = (url) => {
      const token = linkToken(secret!, tx.uuid, url);
      links.set(token, { token, customer_id: tx.customer_id, transaction_id: tx.id, url });
      return `${trackingUrl}/t/c/${token}`;
    };
  }
  let pixel = message.track_opens ? `${trackingUrl}/t/o/${openToken(secret!, tx.uuid)}` : null;
  const html = (content: string) => {
    const rewritten = rewriteHtmlLinks(content, opts);
    if (!pixel) return rewritten;
    const withPixel = insertOpenPixel(rewritten, pixel);
    pixel = null; // one pixel per message, in its first HTML part
    return withPixel;
  };

  const content: TrackedContent = raw
    ? {
        html: null,
        text: null,
        raw: rewriteTextParts(raw, (part, subtype) => (subtype === 'html' ? html(part) : rewriteTextLinks(part, opts))),
      }
    : {
        html: message.html === null ? null : html(message.html),
        text: message.text === null ? null : rewriteTextLinks(message.text, opts),
        raw: null,
      };
  await linkWriterOf(ctx).add([...links.values()]);
  return content;
}

/** The link a click token names, or undefined for an unknown (or forged) token. */
export async function resolveClick(ctx: AppContext, token: string): Promise<FoundLink | undefined> {
  if (!/^[A-Za-z0-9_-]{22}$/.test(token)) return undefined;
  return findLink(ctx.db, token);
}

export interface HitClient {
  ip: string | null;
  userAgent: string | null;
}

type Hit = ({ kind: 'open'; uuid: string } | { kind: 'click'; link: FoundLink }) & HitClient & { at: Date };

// As the delivery worker's outcomes: up to 100 ms or 500 hits per database transaction, written
// again when a write fails (src/server/db/batch-writer.ts). Unlike an outcome, a hit carries no
// guard against being written twice: should a COMMIT succeed but its answer be lost on the way
// back, the retry counts those hits again (rare; counting them never would be worse).
const FLUSH_MS = 100;
const FLUSH_SIZE = 500;

// one writer per context (as lookup-cache.ts keys its caches), so tests never share one
const recorders = new WeakMap<object, BatchWriter<Hit>>();

function recorderOf(ctx: AppContext): BatchWriter<Hit> {
  let recorder = recorders.get(ctx.config);
  if (!recorder) {
    recorder = new BatchWriter<Hit>({
      what: 'opens and clicks',
      logger: ctx.logger,
      flushMs: FLUSH_MS,
      flushSize: FLUSH_SIZE,
      write: (hits) => recordHits(ctx, hits),
    });
    recorders.set(ctx.config, recorder);
  }
  return recorder;
}

/** Buffers an open of the transaction `uuid` (from a verified open token); `at` only for the demo's history. */
export function recordOpen(ctx: AppContext, uuid: string, client: HitClient, at = new Date()): void {
  recorderOf(ctx).add({ kind: 'open', uuid, ...client, at });
}

/** Buffers a click on a stored link; `at` only for the demo's history. */
export function recordClick(ctx: AppContext, link: FoundLink, client: HitClient, at = new Date()): void {
  recorderOf(ctx).add({ kind: 'click', link, ...client, at });
}

/** Writes every buffered hit now: at shutdown of the web role (main.ts), and in tests. */
export function flushTracking(ctx: AppContext): Promise<void> {
  return recorders.get(ctx.config)?.flush() ?? Promise.resolve();
}

function addDelta(into: Map<number, CounterDelta>, id: number, at: Date): void {
  const d = into.get(id);
  if (!d) into.set(id, { id, count: 1, at });
  else {
    d.count += 1;
    if (at < d.at) d.at = at;
  }
}

/** Turns a batch of hits into counters, events and daily_stats, written in one transaction. */
async function recordHits(ctx: AppContext, hits: Hit[]): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const opened = new Map(
      (
        await transactionsByUuid(
          trx,
          hits.flatMap((h) => (h.kind === 'open' ? [h.uuid] : [])),
        )
      ).map((t) => [t.uuid, t]),
    );
    const opens = new Map<number, CounterDelta>();
    const clicks = new Map<number, CounterDelta>();
    const linkClicks = new Map<number, CounterDelta>();
    const resolved: { hit: Hit; tx: { id: number; customer_id: number; group_id: number } }[] = [];
    for (const hit of hits) {
      if (hit.kind === 'open') {
        const tx = opened.get(hit.uuid);
        if (!tx) continue; // a valid token whose transaction is gone (customer deleted)
        addDelta(opens, tx.id, hit.at);
        resolved.push({ hit, tx });
      } else {
        addDelta(clicks, hit.link.transaction_id, hit.at);
        addDelta(linkClicks, hit.link.id, hit.at);
        resolved.push({
          hit,
          tx: { id: hit.link.transaction_id, customer_id: hit.link.customer_id, group_id: hit.link.group_id },
        });
      }
    }
    const firstOpens = await addTransactionHits(trx, 'open', [...opens.values()]);
    const firstClicks = await addTransactionHits(trx, 'click', [...clicks.values()]);
    await addLinkClicks(trx, [...linkClicks.values()]);
    // the Links tab's rollup, after links.clicks so it can tell each transaction's first click (migration 009)
    await bumpLinkStats(trx, [...linkClicks.values()]);

    const events: NewEvent[] = [];
    const stats: StatDelta[] = [];
    for (const { hit, tx } of resolved) {
      const client = { user_agent: hit.userAgent, ip: hit.ip };
      const key = { customer_id: tx.customer_id, group_id: tx.group_id, day: statDay(hit.at) };
      if (hit.kind === 'open') {
        events.push({ customer_id: tx.customer_id, transaction_id: tx.id, type: 'open', at: hit.at, data: client });
        // the unique open is counted once, on the day of the transaction's first open
        const first = firstOpens.delete(tx.id);
        stats.push({ ...key, counts: { opens: 1, unique_opens: first ? 1 : 0 } });
      } else {
        events.push({
          customer_id: tx.customer_id,
          transaction_id: tx.id,
          type: 'click',
          at: hit.at,
          data: { url: hit.link.url, ...client },
        });
        const first = firstClicks.delete(tx.id);
        stats.push({ ...key, counts: { clicks: 1, unique_clicks: first ? 1 : 0 } });
      }
    }
    await insertEvents(trx, events, ctx);
    await bumpDailyStats(trx, stats);
  });
}

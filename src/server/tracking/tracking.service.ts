// Open and click tracking. At delivery, a message of a customer with tracking on gets
// tracking links and a pixel (tokens only: HMACs under TRANSACT_SECRET, so none can be forged or
// pointed at another transaction). When the recipient's client fetches them, each hit is buffered
// and written in batches: a burst of pixel loads is one database transaction, not one each.
import { createHmac } from 'node:crypto';
import type { AppContext } from '../core/context.ts';
import { BatchWriter } from '../db/batch-writer.ts';
import { GroupWrite } from '../db/group-write.ts';
import { safeEqual } from '../core/crypto.ts';
import { clickEventsBetween } from '../events/events.repository.ts';
import type { CounterDelta } from '../db/counters.ts';
import { recordOpensAndClicks } from '../lifecycle/lifecycle.service.ts';
import type { Database } from '../db/database.ts';
import type { MachineRuleId } from '../../contract/values.ts';
import { EVERY_LINK_WINDOW_MS, type HitFacts, machineRuleOf } from './machine-rules.ts';
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
  deliveryTimes,
  type FoundLink,
  findLink,
  insertLinks,
  linkCounts,
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
  await ctx.tracking.links.add([...links.values()]);
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
  /** The request's method: GET (the default), or HEAD, which only a machine sends (machine-rules.ts). */
  method?: 'GET' | 'HEAD';
}

type Hit = ({ kind: 'open'; uuid: string } | { kind: 'click'; link: FoundLink }) & HitClient & { at: Date };

// As the delivery worker's outcomes: up to 100 ms or 500 hits per database transaction, written
// again when a write fails (src/server/db/batch-writer.ts). Unlike an outcome, a hit carries no
// guard against being written twice: should a COMMIT succeed but its answer be lost on the way
// back, the retry counts those hits again (rare; counting them never would be worse).
const FLUSH_MS = 100;
const FLUSH_SIZE = 500;

declare module '../core/context.ts' {
  interface AppContext {
    /** Tracking's writers (create-context.ts); the hits are flushed at shutdown. */
    readonly tracking: TrackingWriters;
  }
}

interface TrackingWriters {
  /** The messages being composed at the same time store their links in one insert (db/group-write.ts). */
  links: GroupWrite<NewLink>;
  /** Opens and clicks, buffered and written in batches. */
  hits: BatchWriter<Hit>;
}

/** The context's tracking writers; `ctx` is read only once something is written. */
export function createTrackingWriters(ctx: AppContext): TrackingWriters {
  return {
    links: new GroupWrite((links) => insertLinks(ctx.db, links)),
    hits: new BatchWriter<Hit>({
      what: 'opens and clicks',
      logger: ctx.logger,
      flushMs: FLUSH_MS,
      flushSize: FLUSH_SIZE,
      write: (hits) => recordHits(ctx, hits),
    }),
  };
}

/** Buffers an open of the transaction `uuid` (from a verified open token); `at` only for the demo's history. */
export function recordOpen(ctx: AppContext, uuid: string, client: HitClient, at = new Date()): void {
  ctx.tracking.hits.add({ kind: 'open', uuid, ...client, at });
}

/** Buffers a click on a stored link; `at` only for the demo's history. */
export function recordClick(ctx: AppContext, link: FoundLink, client: HitClient, at = new Date()): void {
  ctx.tracking.hits.add({ kind: 'click', link, ...client, at });
}

/** Writes every buffered hit now: at shutdown of the web role (main.ts), and in tests. */
export function flushTracking(ctx: AppContext): Promise<void> {
  return ctx.tracking.hits.flush();
}

function addDelta(into: Map<number, CounterDelta>, id: number, at: Date): void {
  const d = into.get(id);
  if (!d) into.set(id, { id, count: 1, at });
  else {
    d.count += 1;
    if (at < d.at) d.at = at;
  }
}

interface HitTransaction {
  id: number;
  customer_id: number;
  group_id: number;
  /** When the recipient's server accepted the message (null: not known). */
  deliveredAt: Date | null;
}

/** A hit with its transaction, and the machine rule that caught it (null: a person's). */
interface JudgedHit {
  hit: Hit;
  tx: HitTransaction;
  machineRule: MachineRuleId | null;
}

/**
 * The transactions the hits are about, read in the recording transaction; hits whose transaction
 * is gone are dropped.
 */
async function resolveHits(trx: Database, hits: Hit[]): Promise<{ hit: Hit; tx: HitTransaction }[]> {
  const opened = new Map(
    (
      await transactionsByUuid(
        trx,
        hits.flatMap((h) => (h.kind === 'open' ? [h.uuid] : [])),
      )
    ).map((t) => [t.uuid, t]),
  );
  const delivered = await deliveryTimes(
    trx,
    hits.flatMap((h) => (h.kind === 'click' ? [h.link.transaction_id] : [])),
  );
  return hits.flatMap((hit): { hit: Hit; tx: HitTransaction }[] => {
    if (hit.kind === 'click') {
      const { transaction_id: id, customer_id, group_id } = hit.link;
      if (!delivered.has(id)) return [];
      return [{ hit, tx: { id, customer_id, group_id, deliveredAt: delivered.get(id) ?? null } }];
    }
    const tx = opened.get(hit.uuid);
    // a valid token whose transaction is gone (customer deleted)
    if (!tx) return [];
    const deliveredAt = tx.sent_at && new Date(tx.sent_at);
    return [{ hit, tx: { id: tx.id, customer_id: tx.customer_id, group_id: tx.group_id, deliveredAt } }];
  });
}

/**
 * Asks the machine rules (machine-rules.ts) about every hit. A click is weighed against its
 * message's links and the other clicks from its address — those already recorded around it (read
 * here, in the transaction that records it) and the others of this batch.
 */
async function judgeHits(trx: Database, resolved: { hit: Hit; tx: HitTransaction }[]): Promise<JudgedHit[]> {
  const clicks = resolved.filter((r) => r.hit.kind === 'click');
  const txIds = clicks.map((r) => r.tx.id);
  const times = clicks.map((r) => r.hit.at.getTime());
  const counts = await linkCounts(trx, txIds);
  const recorded =
    clicks.length === 0
      ? []
      : await clickEventsBetween(
          trx,
          txIds,
          new Date(Math.min(...times) - EVERY_LINK_WINDOW_MS),
          new Date(Math.max(...times) + EVERY_LINK_WINDOW_MS),
        );
  // every click by transaction and address: the recorded ones, then this batch's
  const byAddress = new Map<string, { url: string; at: Date; hit?: Hit }[]>();
  const add = (txId: number, ip: unknown, click: { url: string; at: Date; hit?: Hit }) => {
    if (typeof ip !== 'string') return;
    const key = `${txId} ${ip}`;
    byAddress.set(key, [...(byAddress.get(key) ?? []), click]);
  };
  for (const e of recorded) {
    const data = (e.data ?? {}) as { url?: unknown; ip?: unknown };
    if (typeof data.url === 'string') add(Number(e.transaction_id), data.ip, { url: data.url, at: new Date(e.at) });
  }
  for (const { hit, tx } of clicks)
    if (hit.kind === 'click') add(tx.id, hit.ip, { url: hit.link.url, at: hit.at, hit });

  return resolved.map(({ hit, tx }) => {
    const facts: HitFacts = {
      kind: hit.kind,
      method: hit.method ?? 'GET',
      ip: hit.ip,
      userAgent: hit.userAgent,
      at: hit.at,
      deliveredAt: tx.deliveredAt,
    };
    if (hit.kind === 'click') {
      const others = (hit.ip === null ? [] : (byAddress.get(`${tx.id} ${hit.ip}`) ?? [])).filter((c) => c.hit !== hit);
      facts.click = { url: hit.link.url, linkCount: counts.get(tx.id) ?? 0, sameAddress: others };
    }
    return { hit, tx, machineRule: machineRuleOf(facts) };
  });
}

/** Adds people's clicks to the links' and link_stats' counters; machines' hits move neither. */
async function countLinkClicks(trx: Database, people: JudgedHit[]): Promise<void> {
  const linkClicks = new Map<number, CounterDelta>();
  for (const { hit } of people) if (hit.kind === 'click') addDelta(linkClicks, hit.link.id, hit.at);
  await addLinkClicks(trx, [...linkClicks.values()]);
  // the Links tab's rollup, after links.clicks so it can tell each transaction's first click (migration 009)
  await bumpLinkStats(trx, [...linkClicks.values()]);
}

/**
 * Writes a batch of hits in one transaction: each judged by the machine rules, people's counted
 * (transactions, links, link_stats, daily_stats), every one an event (a machine's marked so, with
 * its rule) and machines' counted apart in daily_stats.
 */
async function recordHits(ctx: AppContext, hits: Hit[]): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const judged = await judgeHits(trx, await resolveHits(trx, hits));
    await recordOpensAndClicks(
      trx,
      ctx,
      judged.map(({ hit, tx, machineRule }) => {
        const data: Record<string, unknown> = hit.kind === 'click' ? { url: hit.link.url } : {};
        Object.assign(data, { user_agent: hit.userAgent, ip: hit.ip });
        if (machineRule) Object.assign(data, { machine: true, machine_rule: machineRule });
        return { tx, outcome: hit.kind, at: hit.at, facts: { machine: machineRule !== null }, data };
      }),
    );
    await countLinkClicks(
      trx,
      judged.filter((j) => j.machineRule === null),
    );
  });
}

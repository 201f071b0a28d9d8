// `npm run admin -- queue …`: the destination sites of direct MX delivery as operators
// see and steer them. Suspending or resuming writes the site's shared row, which every worker
// process reads within a second; a resume also brings the site's waiting messages due at once.
import { sql } from 'kysely';
import { formatUnix } from '../../lib/dates.ts';
import type { AppContext } from '../core/context.ts';
import { createResolver } from '../core/resolver.ts';
import { DomainError } from '../core/errors.ts';
import { resolveMxPlan, siteOf } from './mx.ts';
import { releaseClaims } from './queue.repository.ts';
import { UNTIL_RESUMED, listSites, resumeSite, suspendSite, type SiteRow } from './sites.ts';

/**
 * The site an operator means: a site's name as `queue` lists it, one of its MX hosts, or a recipient
 * domain (looked up through DNS_SERVERS, so a site can be suspended before mail for it queues).
 */
export async function findSite(ctx: AppContext, ref: string): Promise<string> {
  const name = ref.trim().toLowerCase().replace(/\.$/, '');
  const sites = (await listSites(ctx.db)).map((s) => s.site);
  if (sites.includes(name)) return name;
  const byHost = sites.filter((s) => s.split(',').includes(name));
  if (byHost.length === 1) return byHost[0];
  if (byHost.length > 1)
    throw new DomainError('conflict', `${name} is an MX host of ${byHost.length} sites: ${byHost.join('; ')}`);
  const plan = await resolveMxPlan(createResolver(ctx.config), name);
  if (plan.kind === 'hosts') return siteOf(plan.hosts);
  throw new DomainError(
    'not_found',
    `No site '${name}', and no MX host of a known site or recipient domain by that name`,
  );
}

export async function suspend(
  ctx: AppContext,
  ref: string,
  minutes: number | null,
): Promise<{ site: string; until: Date | null }> {
  const site = await findSite(ctx, ref);
  const until = minutes === null ? null : new Date(Date.now() + minutes * 60_000);
  await suspendSite(ctx.db, site, until);
  return { site, until };
}

export async function resume(ctx: AppContext, ref: string): Promise<{ site: string; due: number }> {
  const site = await findSite(ctx, ref);
  const due = await resumeSite(ctx.db, site);
  // wake idle workers in other processes (PostgreSQL); in-process ones poll within a second
  if (ctx.config.databaseUrl && due > 0) await sql`select pg_notify('transact_queue', '')`.execute(ctx.db);
  return { site, due };
}

const when = (d: Date | null, now: Date) =>
  d && d > now
    ? d.getTime() >= UNTIL_RESUMED.getTime()
      ? 'until resumed'
      : `${formatUnix(Math.floor(d.getTime() / 1000), 'YYYY-MM-DD HH:mm:ss')}Z`
    : '';

/** The `queue` table: one line per site, busiest first. */
export function formatSites(rows: SiteRow[], now = new Date()): string {
  const head = ['SITE', 'QUEUED', 'IN FLIGHT', 'LIMIT', 'PAUSED UNTIL', 'SUSPENDED', 'LAST REPLY'];
  const lines = rows.map((r) => [
    r.site,
    String(r.queued),
    String(r.in_flight),
    r.conn_limit === null ? 'shaping' : String(r.conn_limit),
    when(r.paused_until && new Date(r.paused_until), now),
    when(r.suspended_until && new Date(r.suspended_until), now),
    (r.last_reply ?? '').slice(0, 60),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  return [head, ...lines]
    .map((l) => l.map((cell, i) => (i === l.length - 1 ? cell : cell.padEnd(widths[i]))).join('  '))
    .join('\n');
}

/**
 * At the start of a process that owns its embedded data directory (PGlite): every claim found
 * belongs to a process that is gone, so all are due again now. Answers how many.
 */
export function releaseOrphanedClaims(ctx: Pick<AppContext, 'db'>): Promise<number> {
  return releaseClaims(ctx.db);
}

// Per-site figures for /metrics: queued, in flight (open connections), paused, and the
// outcomes counted by every worker process, read from the database at scrape time so any web
// process reports the whole service. Labels stay bounded: the busiest sites by name, the rest summed
// as `other`.
import { Counter, Gauge } from 'prom-client';
import type { AppContext } from '../core/context.ts';
import { listSites, type SiteRow } from './sites.ts';

const NAMED_SITES = 10;
const registered = new WeakSet<object>();

/** The rows to report: the busiest `NAMED_SITES` as they are, the rest summed into `other`. */
export function boundedSites(
  rows: SiteRow[],
  now = new Date(),
): {
  site: string;
  queued: number;
  inFlight: number;
  paused: number;
  delivered: number;
  deferred: number;
  failed: number;
}[] {
  const busiest = [...rows].sort(
    (a, b) =>
      b.queued + b.in_flight - (a.queued + a.in_flight) ||
      b.delivered + b.deferred + b.failed - (a.delivered + a.deferred + a.failed),
  );
  const view = (r: SiteRow) => ({
    site: r.site,
    queued: r.queued,
    inFlight: r.in_flight,
    paused:
      (r.paused_until && new Date(r.paused_until) > now) || (r.suspended_until && new Date(r.suspended_until) > now)
        ? 1
        : 0,
    delivered: Number(r.delivered),
    deferred: Number(r.deferred),
    failed: Number(r.failed),
  });
  const named = busiest.slice(0, NAMED_SITES).map(view);
  const rest = busiest.slice(NAMED_SITES).map(view);
  if (rest.length === 0) return named;
  const other = rest.reduce(
    (sum, r) => ({
      site: 'other',
      queued: sum.queued + r.queued,
      inFlight: sum.inFlight + r.inFlight,
      paused: sum.paused + r.paused,
      delivered: sum.delivered + r.delivered,
      deferred: sum.deferred + r.deferred,
      failed: sum.failed + r.failed,
    }),
    { site: 'other', queued: 0, inFlight: 0, paused: 0, delivered: 0, deferred: 0, failed: 0 },
  );
  return [...named, other];
}

export function registerSiteMetrics(ctx: AppContext): void {
  const registry = ctx.metrics.registry;
  if (registered.has(registry)) return;
  registered.add(registry);
  // one read per scrape, shared by the four metrics that collect it
  let pending: Promise<ReturnType<typeof boundedSites>> | null = null;
  const read = () => {
    pending ??= listSites(ctx.db)
      .then((rows) => boundedSites(rows))
      .finally(() => setTimeout(() => (pending = null), 0));
    return pending;
  };
  const gauge = (name: string, help: string, pick: (r: ReturnType<typeof boundedSites>[number]) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['site'],
      registers: [registry],
      async collect() {
        this.reset();
        for (const r of await read()) this.set({ site: r.site }, pick(r));
      },
    });
  gauge('transact_site_queued', 'Messages queued for a destination site (after their first attempt)', (r) => r.queued);
  gauge('transact_site_in_flight', 'Connections open to a destination site across worker processes', (r) => r.inFlight);
  gauge(
    'transact_site_paused',
    'Whether a destination site is paused or suspended (sites summed as other: how many)',
    (r) => r.paused,
  );
  new Counter({
    name: 'transact_site_outcomes_total',
    help: 'Delivery outcomes by destination site, across worker processes',
    labelNames: ['site', 'outcome'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const r of await read()) {
        this.inc({ site: r.site, outcome: 'delivered' }, r.delivered);
        this.inc({ site: r.site, outcome: 'deferred' }, r.deferred);
        this.inc({ site: r.site, outcome: 'failed' }, r.failed);
      }
    },
  });
}

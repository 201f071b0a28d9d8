// Destination sites' shared state: the adaptive connection limit and pause, operator
// suspension, connection slots leased so a site's connection limit holds across every worker
// process, and per-site counters. Each process reads a site's row at most once a second; writes go
// straight to the database (slots, slow-downs, suspensions) or are summed and flushed every two
// seconds (counters, last reply), so a healthy site costs about one statement per connection.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';

export interface SiteState {
  /** The connection limit now: the shaping limit, or lower after slow-down replies. */
  connLimit: number | null;
  pausedUntil: Date | null;
  suspendedUntil: Date | null;
  /** Worker processes holding connections to the site (for sharing a messages-per-second limit). */
  holders: number;
}

/** Why a message cannot go to its site now, and until when it waits (without spending a retry). */
export function blockedUntil(state: SiteState, now: Date): { until: Date; reason: string } | null {
  if (state.suspendedUntil && state.suspendedUntil > now) {
    // suspended until resumed: look again in a minute (a resume brings the site's messages due at once)
    const until = new Date(Math.min(state.suspendedUntil.getTime(), now.getTime() + 60_000));
    return { until, reason: 'site suspended by an operator' };
  }
  if (state.pausedUntil && state.pausedUntil > now)
    return { until: state.pausedUntil, reason: 'site paused after a slow-down reply' };
  return null;
}

const READ_EVERY_MS = 1000;
const FLUSH_EVERY_MS = 2000;
const SLOT_LEASE_SECONDS = 120;
export const MAX_PAUSE_SECONDS = 1800;
/** A suspension without an end (not 'infinity': drivers read that back differently). */
export const UNTIL_RESUMED = new Date('9999-12-31T00:00:00Z');

interface Tally {
  delivered: number;
  deferred: number;
  failed: number;
  lastReply?: string;
}

export class SiteRegistry {
  /** This process, as the holder of its connection slots. */
  readonly holder = randomUUID();
  readonly #db: Database;
  readonly #basePauseSeconds: number;
  readonly #states = new Map<string, { state: SiteState; read: number; pending?: Promise<SiteState> }>();
  readonly #tallies = new Map<string, Tally>();
  #timer: NodeJS.Timeout;

  constructor(db: Database, opts: { basePauseSeconds: number }) {
    this.#db = db;
    this.#basePauseSeconds = opts.basePauseSeconds;
    this.#timer = setInterval(() => void this.flush().catch(() => {}), FLUSH_EVERY_MS);
    this.#timer.unref();
  }

  /** The site's shared state, at most a second old. */
  async state(site: string): Promise<SiteState> {
    const entry = this.#states.get(site);
    if (entry && Date.now() - entry.read < READ_EVERY_MS) return entry.state;
    if (entry?.pending) return entry.pending;
    const pending = this.#read(site);
    this.#states.set(site, {
      state: entry?.state ?? { connLimit: null, pausedUntil: null, suspendedUntil: null, holders: 0 },
      read: entry?.read ?? 0,
      pending,
    });
    try {
      const state = await pending;
      this.#states.set(site, { state, read: Date.now() });
      return state;
    } catch (err) {
      this.#states.set(site, {
        state: entry?.state ?? { connLimit: null, pausedUntil: null, suspendedUntil: null, holders: 0 },
        read: entry?.read ?? 0,
      });
      throw err;
    }
  }

  /** Forgets the cached state so the next look reads the database. */
  invalidate(site: string): void {
    this.#states.delete(site);
  }

  async #read(site: string): Promise<SiteState> {
    const { rows } = await sql<{
      conn_limit: number | null;
      paused_until: Date | null;
      suspended_until: Date | null;
      holders: string;
    }>`
      select s.conn_limit, s.paused_until, s.suspended_until,
             (select count(distinct holder) from delivery_site_slots where site = ${site} and until > now()) as holders
        from (select 1) one left join delivery_sites s on s.site = ${site}`.execute(this.#db);
    const r = rows[0];
    const date = (v: Date | string | null) => (v === null ? null : new Date(v));
    return {
      connLimit: r?.conn_limit ?? null,
      pausedUntil: date(r?.paused_until ?? null),
      suspendedUntil: date(r?.suspended_until ?? null),
      holders: Number(r?.holders ?? 0),
    };
  }

  /** Leases a free connection slot below `limit`; null when all are taken (here or elsewhere). */
  async acquireSlot(site: string, limit: number): Promise<number | null> {
    const { rows } = await sql<{ slot: number }>`
      insert into delivery_site_slots (site, slot, holder, until)
      select ${site}, s, ${this.holder}, now() + make_interval(secs => ${SLOT_LEASE_SECONDS})
        from generate_series(0, ${limit - 1}) s
       where not exists (select 1 from delivery_site_slots d where d.site = ${site} and d.slot = s and d.until > now())
       order by s limit 1
      on conflict (site, slot) do update set holder = excluded.holder, until = excluded.until
       where delivery_site_slots.until <= now()
      returning slot`.execute(this.#db);
    return rows[0] ? Number(rows[0].slot) : null;
  }

  /** Extends a slot's lease (a connection kept busy for longer than the lease). */
  async renewSlot(site: string, slot: number): Promise<void> {
    await sql`update delivery_site_slots set until = now() + make_interval(secs => ${SLOT_LEASE_SECONDS}) where site
      = ${site} and slot = ${slot} and holder = ${this.holder}`.execute(this.#db);
  }

  async releaseSlot(site: string, slot: number): Promise<void> {
    await sql`delete from delivery_site_slots where site = ${site} and slot = ${slot} and holder =
      ${this.holder}`.execute(this.#db);
  }

  static readonly SLOT_RENEW_MS = (SLOT_LEASE_SECONDS / 2) * 1000;

  /**
   * A slow-down reply (421, 4.7.x rate limit): halves the site's connection limit (down to 1) and
   * pauses it for 30 s, doubling up to 30 min while the replies repeat. Replies that arrive while the
   * site is already paused (other connections' answers to the same wall) change nothing more.
   * Returns when the pause ends.
   */
  async slowDown(site: string, maxConnections: number, reply: string): Promise<Date> {
    const base = this.#basePauseSeconds;
    const { rows } = await sql<{ paused_until: Date }>`
      insert into delivery_sites as d (site, conn_limit, paused_until, pause_seconds, last_reply, last_reply_at)
      values (${site}, ${Math.max(1, Math.floor(maxConnections / 2))}, now() + make_interval(secs => ${base}),
        ${base}, ${reply}, now())
      on conflict (site) do update set
        conn_limit = greatest(1, coalesce(d.conn_limit, ${maxConnections}) / 2),
        pause_seconds = least(${MAX_PAUSE_SECONDS}, case when d.pause_seconds > 0 then d.pause_seconds * 2 else
          ${base} end),
        paused_until = now() + make_interval(secs => least(${MAX_PAUSE_SECONDS}, case when d.pause_seconds > 0 then
          d.pause_seconds * 2 else ${base} end)),
        last_reply = excluded.last_reply,
        last_reply_at = now()
       where d.paused_until is null or d.paused_until <= now()
      returning paused_until`.execute(this.#db);
    this.invalidate(site);
    if (rows[0]) return new Date(rows[0].paused_until);
    const state = await this.state(site);
    return state.pausedUntil ?? new Date(Date.now() + base * 1000);
  }

  /**
   * A delivery to a site whose limit was lowered raises it one step (and ends the doubling of
   * pauses); back at the shaping limit, the site's row forgets the pause, so healthy sites cost no
   * statement here.
   */
  async recovered(site: string, maxConnections: number): Promise<void> {
    const cached = this.#states.get(site)?.state;
    if (cached && cached.connLimit === null && cached.pausedUntil === null) return;
    await sql`
      update delivery_sites
         set conn_limit = case when conn_limit is null or conn_limit + 1 >= ${maxConnections} then null else
           conn_limit + 1 end,
             paused_until = case when conn_limit is null or conn_limit + 1 >= ${maxConnections} then null else
               paused_until end,
             pause_seconds = 0
       where site = ${site} and (conn_limit is not null or pause_seconds > 0 or paused_until is not null)
         and (paused_until is null or paused_until <= now())`.execute(this.#db);
    this.invalidate(site);
  }

  /** Counts an outcome for `admin queue` and /metrics (written every two seconds). */
  tally(site: string, kind: 'delivered' | 'deferred' | 'failed', reply: string): void {
    let t = this.#tallies.get(site);
    if (!t) {
      t = { delivered: 0, deferred: 0, failed: 0 };
      this.#tallies.set(site, t);
    }
    t[kind]++;
    t.lastReply = reply;
  }

  async flush(): Promise<void> {
    if (this.#tallies.size === 0) return;
    const rows = [...this.#tallies].map(
      ([site, t]) =>
        sql`(${site}::text, ${t.delivered}::bigint, ${t.deferred}::bigint, ${t.failed}::bigint,
          ${t.lastReply ?? null}::text)`,
    );
    this.#tallies.clear();
    await sql`
      insert into delivery_sites as d (site, delivered, deferred, failed, last_reply, last_reply_at)
      select site, delivered, deferred, failed, last_reply, now() from (values ${sql.join(rows)}) as v(site,
        delivered, deferred, failed, last_reply)
      on conflict (site) do update set
        delivered = d.delivered + excluded.delivered,
        deferred = d.deferred + excluded.deferred,
        failed = d.failed + excluded.failed,
        last_reply = coalesce(excluded.last_reply, d.last_reply),
        last_reply_at = now()`.execute(this.#db);
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush().catch(() => {});
    await sql`delete from delivery_site_slots where holder = ${this.holder}`.execute(this.#db).catch(() => {});
  }
}

/** Sends messages that wait for their site back to the queue without spending an attempt. */
export async function requeueWaiting(
  db: Database,
  rows: { id: number; attempts: number; until: Date; site: string }[],
): Promise<void> {
  if (rows.length === 0) return;
  const values = rows.map((r) => sql`(${r.id}::bigint, ${r.attempts}::int, ${r.until}::timestamptz, ${r.site}::text)`);
  await sql`
    update transactions as t set attempts = t.attempts - 1, next_attempt_at = v.until, locked_until = null, site =
      v.site
      from (values ${sql.join(values)}) as v(id, attempts, until, site)
     where t.id = v.id and t.attempts = v.attempts and t.status = 'queued'`.execute(db);
}

/** Remembers the site of messages that stay queued (deferred), for `admin queue` and resume. */
export async function rememberSites(db: Database, rows: { id: number; site: string }[]): Promise<void> {
  if (rows.length === 0) return;
  const values = rows.map((r) => sql`(${r.id}::bigint, ${r.site}::text)`);
  await sql`update transactions as t set site = v.site from (values ${sql.join(values)}) as v(id, site) where t.id =
    v.id and t.status = 'queued'`.execute(db);
}

export interface SiteRow {
  site: string;
  queued: number;
  in_flight: number;
  conn_limit: number | null;
  paused_until: Date | null;
  suspended_until: Date | null;
  last_reply: string | null;
  delivered: number;
  deferred: number;
  failed: number;
}

/** Every known site with its queue (`admin queue`, /metrics). Queued messages never tried have no site yet. */
export async function listSites(db: Database): Promise<SiteRow[]> {
  const { rows } = await sql<SiteRow>`
    with q as (select site, count(*)::int as queued from transactions where status = 'queued' and site is not null
      group by site),
         f as (select site, count(*)::int as in_flight from delivery_site_slots where until > now() group by site)
    select coalesce(s.site, q.site) as site, coalesce(q.queued, 0) as queued, coalesce(f.in_flight, 0) as in_flight,
           s.conn_limit, s.paused_until, s.suspended_until, s.last_reply,
           coalesce(s.delivered, 0)::int as delivered, coalesce(s.deferred, 0)::int as deferred, coalesce(s.failed,
             0)::int as failed
      from delivery_sites s full join q on q.site = s.site left join f on f.site = coalesce(s.site, q.site)
     order by coalesce(q.queued, 0) desc, coalesce(s.delivered, 0) desc, 1`.execute(db);
  return rows.map((r) => ({ ...r, queued: Number(r.queued), in_flight: Number(r.in_flight) }));
}

/** `admin queue suspend`: no new connections to the site until `until` (null: until resumed). */
export async function suspendSite(db: Database, site: string, until: Date | null): Promise<void> {
  await sql`
    insert into delivery_sites as d (site, suspended_until) values (${site}, ${until ?? UNTIL_RESUMED})
    on conflict (site) do update set suspended_until = excluded.suspended_until`.execute(db);
}

/** `admin queue resume`: lifts a suspension and a pause; the site's waiting messages come due now. */
export async function resumeSite(db: Database, site: string): Promise<number> {
  await sql`update delivery_sites set suspended_until = null, paused_until = null where site = ${site}`.execute(db);
  const { rows } = await sql<{ id: number }>`
    update transactions set next_attempt_at = now()
     where status = 'queued' and site = ${site} and next_attempt_at > now() and (locked_until is null or
       locked_until <= now())
    returning id`.execute(db);
  return rows.length;
}

// Direct delivery to a recipient domain's MX hosts, as a trusted MTA does it: every MX
// host and address in turn within one attempt (mx.ts, attempt-rules.ts), connections per
// destination site within the site's shared limits (sites.ts, shaping.ts), STARTTLS whenever
// offered and required under an MTA-STS enforce policy (mta-sts.ts), and a record of what happened
// on the wire: each host and address tried and its answer, the TLS version and cipher, the reply.
import type { Resolver } from 'node:dns/promises';
import tls, { type TLSSocket } from 'node:tls';
import SMTPConnection from 'nodemailer/lib/smtp-connection';
import type { Logger } from 'pino';
import type { Config } from '../core/config.ts';
import { createResolver } from '../core/resolver.ts';
import { type SmtpFailure, isSlowDown, verdictOf } from './attempt-rules.ts';
import { ADDRESS_GONE, TRY_LATER } from './remote-answer.ts';
import { type Refusal, classifyReply, refusalOf } from './smtp-reply.ts';
import { MtaSts, mxMatches, trustedCas } from './mta-sts.ts';
import { type MxPlan, addressesOf, orderMx, resolveMxPlan, siteOf } from './mx.ts';
import { type Shaping, type SiteLimits, loadShaping } from './shaping.ts';
import { SiteRegistry, blockedUntil } from './sites.ts';

/** One host and address tried within an attempt, and what it answered. */
export interface Hop {
  host: string;
  address: string | null;
  reply: string;
}

/** What happened on the wire (recorded with the attempt's event and carried in webhooks). */
export interface Wire {
  site: string;
  mx_host: string | null;
  mx_address: string | null;
  /** 'TLSv1.3', or null when the message went (or would have gone) without TLS. */
  tls_version: string | null;
  tls_cipher: string | null;
  /** The MTA-STS mode that applied, or null when the domain has no policy. */
  mta_sts: 'enforce' | 'testing' | null;
  /** Under `testing`: what an enforce policy would have refused (reported, not enforced). */
  mta_sts_failure?: string;
  tried: Hop[];
}

export type DirectResult =
  | { kind: 'delivered'; reply: string; wire: Wire }
  /** Refused for good or for now (smtp-reply.ts), with what the wire saw. */
  | (Refusal & { wire?: Wire })
  /** The site is paused, suspended or saturated: the message waits without spending a retry. */
  | { kind: 'wait'; reply: string; until: Date; site: string };

interface Session {
  conn: SMTPConnection;
  key: string;
  site: string;
  slot: number;
  sent: number;
  renewAt: number;
  tlsVersion: string | null;
  tlsCipher: string | null;
  /** Why the certificate would not pass an MTA-STS check (null when it would). */
  certProblem: string | null;
  dead: boolean;
  idleTimer?: NodeJS.Timeout;
}

interface SiteLocal {
  waiters: Set<() => void>;
  /** Connections this process holds to the site (each with a slot). */
  open: number;
  nextSendAt: number;
}

const PLAN_CACHE_MS = 60_000;
const IDLE_MS = 5_000;
const SLOT_POLL_MS = 250;
const SLOT_WAIT_MS = 30_000;
const SHORT_WAIT_MS = 1_000;

class Blocked extends Error {
  constructor(
    readonly until: Date,
    reason: string,
  ) {
    super(reason);
  }
}

export class DirectDelivery {
  readonly sites: SiteRegistry;
  readonly #config: Config;
  readonly #logger: Logger;
  readonly #resolver: Resolver;
  readonly #shaping: Shaping;
  readonly #sts: MtaSts;
  readonly #ca: string[];
  readonly #heloName: string;
  readonly #plans = new Map<string, { plan: MxPlan; until: number }>();
  readonly #addresses = new Map<string, { list: string[]; until: number }>();
  readonly #idle = new Map<string, Session[]>();
  readonly #local = new Map<string, SiteLocal>();
  readonly #onStsFailure: (domain: string, reason: string) => void;
  readonly #maxParked: number;
  #parked = 0;

  constructor(opts: {
    config: Config;
    logger: Logger;
    sites: SiteRegistry;
    onStsFailure?: (domain: string, reason: string) => void;
  }) {
    this.#config = opts.config;
    this.#logger = opts.logger;
    this.sites = opts.sites;
    this.#resolver = createResolver(opts.config);
    this.#shaping = loadShaping(opts.config.shapingFile);
    this.#ca = trustedCas(opts.config.extraCaCerts);
    this.#sts = new MtaSts(this.#resolver, this.#ca, opts.config.mtaStsPort);
    this.#heloName = opts.config.heloName ?? new URL(opts.config.publicUrl).hostname;
    this.#onStsFailure = opts.onStsFailure ?? (() => {});
    this.#maxParked = opts.config.deliveryConcurrency * 4;
  }

  /**
   * Messages waiting for a connection to their site (every slot taken). The worker does not count
   * them against DELIVERY_CONCURRENCY, so a slow site never takes the slots of the others; beyond
   * four times that many, a message goes back to the queue for a second instead of waiting here.
   */
  get parked(): number {
    return this.#parked;
  }

  /**
   * One attempt at `domain`'s MX hosts. `requireTls` (the sending domain's `tls: enforced`) asks of
   * every session what an MTA-STS enforce policy asks: STARTTLS and a certificate valid for the host.
   */
  async deliver(
    domain: string,
    envelope: { from: string; to: string[] },
    raw: Buffer,
    requireTls = false,
  ): Promise<DirectResult> {
    const plan = await this.#plan(domain);
    // our own DNS lookup found a domain that takes no mail: the address is as bad as a 5.1.10
    if (plan.kind === 'null') return refusalOf(ADDRESS_GONE, `${domain} does not accept mail (null MX, RFC 7505)`);
    if (plan.kind === 'none') return refusalOf(plan.permanent ? ADDRESS_GONE : TRY_LATER, plan.reason);
    const site = siteOf(plan.hosts);
    const limits = this.#shaping.limitsFor({ hosts: plan.hosts, domain, name: site });
    try {
      return await this.#attempt(domain, plan.hosts, site, limits, raw, envelope, requireTls);
    } catch (err) {
      if (err instanceof Blocked) return { kind: 'wait', reply: err.message, until: err.until, site };
      throw err;
    }
  }

  async #attempt(
    domain: string,
    hosts: string[],
    site: string,
    limits: SiteLimits,
    raw: Buffer,
    envelope: { from: string; to: string[] },
    requireTls: boolean,
  ): Promise<DirectResult> {
    const policy = await this.#sts.policyFor(domain).catch(() => null);
    const wire: Wire = {
      site,
      mx_host: null,
      mx_address: null,
      tls_version: null,
      tls_cipher: null,
      mta_sts: policy?.mode === 'enforce' || policy?.mode === 'testing' ? policy.mode : null,
      tried: [],
    };
    const stsEnforce = policy?.mode === 'enforce';
    const enforce = stsEnforce || requireTls;
    // why a session was refused where verified TLS is required, in front of the reply that says how
    const refused = (host: string, reply: string) =>
      stsEnforce
        ? `MTA-STS enforce: ${reply}`
        : requireTls
          ? `TLS enforced by the sending domain: no verified TLS session with ${host} (${reply})`
          : reply;
    let lastReply = `no MX host of ${domain} could be reached`;
    let slowedUntil: Date | null = null;
    for (const host of hosts) {
      if (policy && !policy.mx.some((p) => mxMatches(p, host))) {
        const reason = `${host} is not an MX host of the MTA-STS policy of ${domain}`;
        if (stsEnforce) {
          wire.tried.push({ host, address: null, reply: reason });
          lastReply = reason;
          continue;
        }
        this.#stsFailure(wire, domain, reason);
      }
      const addresses = await this.#addressesOf(host);
      if (addresses.length === 0) {
        wire.tried.push({ host, address: null, reply: 'no address (A or AAAA)' });
        continue;
      }
      for (const address of addresses) {
        let session: Session;
        try {
          session = await this.#acquire(site, limits, host, address, enforce);
        } catch (err) {
          if (err instanceof Blocked) throw err;
          const f = err as SmtpFailure & { message?: string };
          const reply = f.response ?? `${f.code ?? 'ERROR'}: ${f.message ?? 'connection failed'}`;
          wire.tried.push({ host, address, reply });
          lastReply = refused(host, reply);
          if (isSlowDown(f.responseCode, reply))
            slowedUntil = await this.sites.slowDown(site, limits.maxConnections, reply);
          continue; // any failure to set a session up moves on to the next address or host
        }
        wire.mx_host = host;
        wire.mx_address = address;
        wire.tls_version = session.tlsVersion;
        wire.tls_cipher = session.tlsCipher;
        if (policy?.mode === 'testing' && session.certProblem) this.#stsFailure(wire, domain, session.certProblem);
        await this.#pace(site, limits);
        try {
          const info = await new Promise<SMTPConnection.SentMessageInfo>((resolve, reject) =>
            session.conn.send(envelope, raw, (err, i) => (err ? reject(err) : resolve(i))),
          );
          const reply = String(info.response ?? '250 OK');
          wire.tried.push({ host, address, reply });
          this.#release(session, true, limits);
          this.sites.tally(site, 'delivered', reply);
          void this.sites.recovered(site, limits.maxConnections).catch(() => {});
          return { kind: 'delivered', reply, wire };
        } catch (err) {
          this.#release(session, false, limits);
          const f = err as SmtpFailure & { message?: string };
          const reply = f.response ?? `${f.code ?? 'ERROR'}: ${f.message ?? 'delivery failed'}`;
          wire.tried.push({ host, address, reply });
          lastReply = reply;
          if (isSlowDown(f.responseCode, reply))
            slowedUntil = await this.sites.slowDown(site, limits.maxConnections, reply);
          if (verdictOf(f) === 'next-host') continue;
          // this host's answer ends the attempt; it gets the verdict a DSN quoting it would get
          const answer = classifyReply(f.responseCode, reply);
          this.sites.tally(site, answer.retry ? 'deferred' : 'failed', reply);
          // a slow-down to MAIL/RCPT/DATA: the whole site waits, the message without spending a retry
          if (answer.retry && slowedUntil) return { kind: 'wait', reply, until: slowedUntil, site };
          return { ...refusalOf(answer, reply), wire };
        }
      }
    }
    this.sites.tally(site, 'deferred', lastReply);
    if (slowedUntil) return { kind: 'wait', reply: lastReply, until: slowedUntil, site };
    return { kind: 'temporary', reply: lastReply, category: TRY_LATER.category, wire };
  }

  #stsFailure(wire: Wire, domain: string, reason: string): void {
    wire.mta_sts_failure = wire.mta_sts_failure ? `${wire.mta_sts_failure}; ${reason}` : reason;
    this.#logger.warn({ domain, reason }, 'MTA-STS testing policy: delivery would have been refused under enforce');
    this.#onStsFailure(domain, reason);
  }

  async #plan(domain: string): Promise<MxPlan> {
    const hit = this.#plans.get(domain);
    if (hit && hit.until > Date.now()) {
      // equal preferences are shuffled again for each message, so they share the load
      return hit.plan.kind === 'hosts' && hit.plan.records ? orderMx(hit.plan.records) : hit.plan;
    }
    const plan = await resolveMxPlan(this.#resolver, domain);
    if (plan.kind !== 'none' || plan.permanent) this.#plans.set(domain, { plan, until: Date.now() + PLAN_CACHE_MS });
    return plan;
  }

  async #addressesOf(host: string): Promise<string[]> {
    const hit = this.#addresses.get(host);
    if (hit && hit.until > Date.now()) return hit.list;
    const list = await addressesOf(this.#resolver, host);
    if (list.length > 0) this.#addresses.set(host, { list, until: Date.now() + PLAN_CACHE_MS });
    return list;
  }

  #localOf(site: string): SiteLocal {
    let l = this.#local.get(site);
    if (!l) {
      l = { waiters: new Set(), open: 0, nextSendAt: 0 };
      this.#local.set(site, l);
    }
    return l;
  }

  /** An idle connection to this host and address, or a new one once the site has a free slot. */
  async #acquire(site: string, limits: SiteLimits, host: string, address: string, enforce: boolean): Promise<Session> {
    const key = `${host}|${address}|${enforce ? 'sts' : 'opp'}`;
    const deadline = Date.now() + SLOT_WAIT_MS;
    for (;;) {
      const state = await this.sites.state(site);
      const blocked = blockedUntil(state, new Date());
      if (blocked) throw new Blocked(blocked.until, blocked.reason);
      const idle = this.#idle.get(key);
      while (idle && idle.length > 0) {
        const s = idle.pop()!;
        clearTimeout(s.idleTimer);
        if (!s.dead) return s;
      }
      const limit = Math.min(state.connLimit ?? limits.maxConnections, limits.maxConnections);
      const local = this.#localOf(site);
      // this process alone holds the limit: no slot can be free, so do not ask the database
      const slot = local.open < limit ? await this.sites.acquireSlot(site, limit) : null;
      if (slot !== null) {
        local.open++;
        try {
          return await this.#open(site, slot, key, host, address, enforce);
        } catch (err) {
          local.open--;
          void this.sites.releaseSlot(site, slot).catch(() => {});
          this.#wakeOne(site);
          throw err;
        }
      }
      // every slot is taken: an idle connection of this site to another host gives its slot up
      if (this.#closeOneIdle(site)) continue;
      if (Date.now() > deadline || this.#parked >= this.#maxParked)
        throw new Blocked(new Date(Date.now() + SHORT_WAIT_MS), `waiting for a connection to ${site}`);
      this.#parked++;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          local.waiters.delete(done);
          resolve();
        };
        // slots held by other processes free up without telling us: the first waiter looks again
        // shortly, the others wait for a connection of this process to come free
        const timer = setTimeout(done, local.waiters.size === 0 ? SLOT_POLL_MS : SLOT_POLL_MS * 20);
        local.waiters.add(done);
      });
      this.#parked--;
    }
  }

  #open(site: string, slot: number, key: string, host: string, address: string, enforce: boolean): Promise<Session> {
    const timeout = this.#config.mxTimeoutSeconds * 1000;
    const conn = new SMTPConnection({
      host: address,
      port: this.#config.mxPort,
      name: this.#heloName,
      secure: false,
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: 60_000,
      // STARTTLS whenever offered; under MTA-STS enforce it is required, with a certificate valid
      // for the MX host name (RFC 8461 §4.2); otherwise opportunistic, as MX certificates often
      // do not match their names
      requireTLS: enforce,
      tls: { servername: host, rejectUnauthorized: enforce, ca: this.#ca, minVersion: 'TLSv1.2' },
    });
    const session: Session = {
      conn,
      key,
      site,
      slot,
      sent: 0,
      renewAt: Date.now() + SiteRegistry.SLOT_RENEW_MS,
      tlsVersion: null,
      tlsCipher: null,
      certProblem: null,
      dead: false,
    };
    return new Promise((resolve, reject) => {
      let settled = false;
      const fail = (err: Error) => {
        session.dead = true;
        if (!settled) {
          settled = true;
          session.slot = -1; // the caller gives the slot back
          conn.close();
          reject(err);
        } else this.#forget(session);
      };
      conn.on('error', fail);
      conn.on('end', () =>
        fail(
          Object.assign(new Error(`connection to ${host} (${address}) closed`), {
            code: 'ECONNECTION',
            command: 'CONN',
          }),
        ),
      );
      conn.connect(() => {
        if (settled) return;
        settled = true;
        const socket = conn._socket as TLSSocket;
        if (conn.secure && typeof socket.getProtocol === 'function') {
          session.tlsVersion = socket.getProtocol();
          session.tlsCipher = socket.getCipher()?.name ?? null;
          const identity = socket.authorized ? tls.checkServerIdentity(host, socket.getPeerCertificate()) : undefined;
          session.certProblem = !socket.authorized
            ? `certificate of ${host} not trusted (${String(socket.authorizationError)})`
            : identity
              ? `certificate not valid for ${host}`
              : null;
        } else {
          session.certProblem = `${host} offered no STARTTLS`;
        }
        resolve(session);
      });
    });
  }

  #release(session: Session, ok: boolean, limits: SiteLimits): void {
    session.sent++;
    if (!ok || session.dead || session.sent >= limits.maxMessagesPerConnection) {
      this.#close(session);
      return;
    }
    if (Date.now() > session.renewAt) {
      session.renewAt = Date.now() + SiteRegistry.SLOT_RENEW_MS;
      void this.sites.renewSlot(session.site, session.slot).catch(() => {});
    }
    session.idleTimer = setTimeout(() => this.#close(session), IDLE_MS);
    session.idleTimer.unref();
    const list = this.#idle.get(session.key) ?? [];
    list.push(session);
    this.#idle.set(session.key, list);
    this.#wakeOne(session.site);
  }

  #close(session: Session): void {
    if (!session.dead) {
      session.dead = true;
      try {
        session.conn.quit();
      } catch {
        session.conn.close();
      }
    }
    this.#forget(session);
  }

  #forget(session: Session): void {
    clearTimeout(session.idleTimer);
    const list = this.#idle.get(session.key);
    if (list)
      this.#idle.set(
        session.key,
        list.filter((s) => s !== session),
      );
    if (session.slot >= 0) {
      const slot = session.slot;
      session.slot = -1;
      this.#localOf(session.site).open--;
      void this.sites.releaseSlot(session.site, slot).then(
        () => this.#wakeOne(session.site),
        () => {},
      );
    }
  }

  #closeOneIdle(site: string): boolean {
    for (const list of this.#idle.values()) {
      const s = list.find((x) => x.site === site && !x.dead);
      if (s) {
        this.#close(s);
        return true;
      }
    }
    return false;
  }

  #wakeOne(site: string): void {
    const local = this.#local.get(site);
    const first = local?.waiters.values().next().value;
    first?.();
  }

  /** Spaces sends to a site under its messages-per-second limit, shared among the processes sending to it. */
  async #pace(site: string, limits: SiteLimits): Promise<void> {
    if (!limits.maxMessagesPerSecond) return;
    const state = await this.sites.state(site);
    const local = this.#localOf(site);
    const interval = (1000 * Math.max(1, state.holders)) / limits.maxMessagesPerSecond;
    const now = Date.now();
    const at = Math.max(now, local.nextSendAt);
    local.nextSendAt = at + interval;
    if (at > now) await new Promise((r) => setTimeout(r, at - now));
  }

  async close(): Promise<void> {
    for (const list of this.#idle.values()) for (const s of [...list]) this.#close(s);
    this.#idle.clear();
    await this.sites.close();
  }
}

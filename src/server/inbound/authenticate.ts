// SPF, DKIM and DMARC of a received message, checked by mailauth (a maintained implementation of
// RFC 7208, 6376 and 7489 that also writes the Authentication-Results header of RFC 8601), through
// the service's resolver (DNS_SERVERS), so tests answer from their own DNS server.
import type { Readable } from 'node:stream';
import type { AppContext } from '../core/context.ts';

/** One word per check, as RFC 8601 writes them (`pass`, `fail`, `softfail`, `none`, …). */
export interface AuthVerdicts {
  spf: string;
  /** `pass` when a signature of the From domain (or any) verified, else the first result, or `none`. */
  dkim: string;
  dmarc: string;
  /** The policy DMARC applied (`reject`, `quarantine`, `none`), when a record was found. */
  dmarcPolicy: string | null;
  /** Received-SPF and Authentication-Results, each ending in CRLF: what goes on top of the message. */
  headers: string;
}

/** Where the message came from: the SMTP session's facts. */
export interface SmtpOrigin {
  ip: string;
  helo: string;
  mailFrom: string;
}

/** Checks `message` (the raw bytes as received) as coming from `origin`. */
export async function checkAuthentication(
  ctx: AppContext,
  message: Readable,
  origin: SmtpOrigin,
): Promise<AuthVerdicts> {
  // loaded on the first received message: a process that receives none never reads mailauth
  const { authenticate } = await import('mailauth');
  const result = await authenticate(message, {
    ip: origin.ip,
    helo: origin.helo,
    sender: origin.mailFrom,
    mta: ctx.config.smtpPublicHost ?? new URL(ctx.config.publicUrl).hostname,
    resolver: (name, type) => ctx.resolver.resolve(name, type) as Promise<string[][] | string[]>,
    disableArc: true,
    disableBimi: true,
  });
  const dkimResults = result.dkim.results.map((r) => r.status.result);
  const dkim = dkimResults.includes('pass') ? 'pass' : (dkimResults[0] ?? 'none');
  return {
    spf: result.spf ? result.spf.status.result : 'none',
    dkim,
    dmarc: result.dmarc ? result.dmarc.status.result : 'none',
    dmarcPolicy: (result.dmarc || undefined)?.policy || null,
    // a NUL a forged From may carry into header.from cannot be stored (PostgreSQL text holds none)
    headers: result.headers.replace(/\r?\n/g, '\r\n').replaceAll('\u0000', ''),
  };
}

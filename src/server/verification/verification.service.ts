// Domain verification by email: adding a domain mails a link to an address at that
// domain; whoever can read mail there confirms it and the domain becomes sending-verified. The
// link's GET only shows a Confirm button and the POST confirms, so link scanners verify nothing.
// Tokens are random, stored only as a SHA-256 hash, bound to their domain, single use, 48 h.
import { createHash, randomBytes } from 'node:crypto';
import type { AppContext } from '../core/context.ts';
import type { Domain } from '../db/schema.ts';
import { DomainError } from '../core/errors.ts';
import { clearLookupCaches, invalidateLookups } from '../core/lookup-cache.ts';
import { accept, prepare } from '../sending/sending.service.ts';
import type { Submission } from '../sending/mail.schema.ts';
import { LOCAL_PART_PATTERN } from '../../lib/domain-name.ts';
import * as repo from '../domains/domains.repository.ts';
import { addDomain, type DomainOptions, validDomainName } from '../domains/domains.service.ts';
import { systemSender } from '../domains/system-sender.ts';
import { inTransaction } from '../core/transaction.ts';

export const VERIFICATION_TTL_HOURS = 48;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** Where the link in the verification mail points. */
export function verificationUrl(ctx: Pick<AppContext, 'config'>, domainId: number, token: string): string {
  return new URL(`/verify-domain/${domainId}/${token}`, ctx.config.publicUrl).toString();
}

/** `local@domain` for a verification address the customer typed; the domain part must be the domain itself. */
export function verificationAddress(email: string, domain: string): string {
  const at = email.lastIndexOf('@');
  const local = at > 0 ? email.slice(0, at).trim() : '';
  const emailDomain =
    at > 0
      ? email
          .slice(at + 1)
          .trim()
          .toLowerCase()
      : '';
  if (!local)
    throw new DomainError('validation_failed', 'Enter the part of the verification email address before the @');
  if (local.length > 64 || !LOCAL_PART_PATTERN.test(local))
    throw new DomainError('validation_failed', `'${local}' cannot be the first part of an email address`);
  if (emailDomain !== domain)
    throw new DomainError('validation_failed', `The verification email must be an address at ${domain}`);
  return `${local}@${domain}`;
}

/** Adds a domain for the console and mails its verification link (POST /v1/domains). */
export async function createDomainWithVerification(
  ctx: AppContext,
  customerId: number,
  input: { domain: string; email: string; options?: DomainOptions },
): Promise<Domain> {
  const name = validDomainName(input.domain);
  const email = verificationAddress(input.email, name);
  const domain = await addDomain(ctx, customerId, name, { options: input.options });
  return sendVerification(ctx, domain, email);
}

/** Mails a fresh link (earlier links stop working) to `email`, or to the address used last time. */
export async function resendVerification(
  ctx: AppContext,
  customerId: number,
  domainId: number,
  email?: string,
): Promise<Domain> {
  const domain = await repo.findCustomerDomainById(ctx.db, customerId, domainId);
  if (!domain) throw new DomainError('not_found', 'No such domain');
  if (domain.sending_verified) throw new DomainError('conflict', `${domain.domain} is already verified`);
  const to = email ? verificationAddress(email, domain.domain) : domain.verification_email;
  if (!to)
    throw new DomainError('validation_failed', 'Enter an email address at the domain to send the verification to');
  return sendVerification(ctx, domain, to);
}

async function sendVerification(ctx: AppContext, domain: Domain, email: string): Promise<Domain> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + VERIFICATION_TTL_HOURS * 3600_000);
  await repo.setVerificationToken(ctx.db, domain.id, email, hashToken(token), expiresAt);
  const sender = await systemSender(ctx);
  const submission = verificationMail(sender.from, email, domain.domain, verificationUrl(ctx, domain.id, token));
  await accept(ctx, sender.customerId, [await prepare(ctx, sender.customerId, submission)]);
  ctx.logger.info({ domainId: domain.id, customerId: domain.customer_id }, 'domain verification mail queued');
  return { ...domain, verification_email: email, verification_expires_at: expiresAt };
}

function verificationMail(from: Submission['from'], to: string, domain: string, url: string): Submission {
  const text = [
    `Someone asked to send email from ${domain} through Transact.`,
    '',
    `If that was you or your team, open this link and press Confirm to verify ${domain}:`,
    url,
    '',
    `The link works once and expires in ${VERIFICATION_TTL_HOURS} hours. If you did not expect this message, ignore ` +
      `it: nothing changes until the link is confirmed.`,
  ].join('\n');
  const escapeHtml = (s: string) =>
    s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  const html =
    `<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">
<p>Someone asked to send email from <strong>${escapeHtml(domain)}</strong> through Transact.</p>
<p>If that was you or your team, open this link and press Confirm to verify ${escapeHtml(domain)}:</p>
<p><a href="${escapeHtml(url)}">Verify ${escapeHtml(domain)}</a></p>
<p style="color:#666">The link works once and expires in ${VERIFICATION_TTL_HOURS} hours. If you did not expect this ` +
    `message, ignore it: nothing changes until the link is confirmed.</p>
</body></html>`;
  return {
    from,
    to: [{ email: to, name: null }],
    cc: [],
    bcc: [],
    replyTo: [],
    subject: `Verify ${domain} for sending`,
    html,
    text,
    headers: {},
    attachments: [],
    group: 'Domain verification',
    tags: [],
    metadata: null,
  };
}

export type VerificationLinkState =
  | { state: 'ready'; domain: string }
  | { state: 'expired'; domain: string }
  | { state: 'taken'; domain: string }
  | { state: 'invalid' };

/** What the link's page should offer, without changing anything (GET /verify-domain/{id}/{token}). */
export async function inspectVerificationLink(
  ctx: AppContext,
  domainId: number,
  token: string,
): Promise<VerificationLinkState> {
  if (!Number.isSafeInteger(domainId) || !TOKEN.test(token)) return { state: 'invalid' };
  const domain = await repo.findDomain(ctx.db, domainId);
  if (!domain || domain.verification_token_hash !== hashToken(token)) return { state: 'invalid' };
  if (!domain.verification_expires_at || domain.verification_expires_at.getTime() <= Date.now())
    return { state: 'expired', domain: domain.domain };
  // one account per sending domain: another may have verified it since this link was sent
  const other = await repo.findVerifiedAnywhere(ctx.db, domain.domain);
  if (other && other.customer_id !== domain.customer_id) return { state: 'taken', domain: domain.domain };
  return { state: 'ready', domain: domain.domain };
}

/** Confirms the link (its POST): the domain becomes sending-verified and the token is used up. */
export async function confirmVerificationLink(
  ctx: AppContext,
  domainId: number,
  token: string,
): Promise<VerificationLinkState | { state: 'verified'; domain: string }> {
  const seen = await inspectVerificationLink(ctx, domainId, token);
  if (seen.state !== 'ready') return seen;
  const verified = await inTransaction(ctx.db, async (trx) => {
    const row = await repo.consumeVerificationToken(trx, domainId, hashToken(token));
    if (row) await invalidateLookups(ctx, trx);
    return row;
  });
  if (!verified) return { state: 'invalid' }; // used or replaced between the two reads
  clearLookupCaches(ctx);
  ctx.logger.info({ domainId, customerId: verified.customer_id }, 'domain verified by email');
  return { state: 'verified', domain: verified.domain };
}

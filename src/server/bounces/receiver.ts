// The bounce receiver (smtp role): the SMTP server behind the return-path domain's MX. It takes
// mail for its own domain only (it never relays): DSNs for VERP addresses whose HMAC verifies,
// classified and recorded as a bounce through the lifecycle (status, event, daily_stats,
// suppression) in one database transaction before answering 250; the List-Unsubscribe mailto:;
// and feedback-loop reports (RFC 5965) at a VERP address or any other address of the domain, the
// one a provider's loop is registered with (complaints.service.ts). Hooks reject with a responseCode.
import { SMTPServer, type SMTPServerDataStream } from 'smtp-server';
import type { AppContext } from '../core/context.ts';
import { returnPathDomainOf } from '../domains/domains.service.ts';
import { parseVerp } from '../delivery/verp.ts';
import type { ReturnPathKeys } from './arf.ts';
import { applyToTransaction, receiveFeedback } from './complaints.service.ts';
import { tlsMaterial } from '../smtp/submission.ts';
import { recordBounceReport } from '../lifecycle/lifecycle.service.ts';
import { parseUnsubscribeAddress, parseUnsubscribeLocalPart } from '../message/list-unsubscribe.ts';
import { unsubscribeByMail } from '../unsubscribe/unsubscribe.service.ts';
import { type BounceClassification, classifyBounce } from './dsn.ts';
import { type ParsedBounce, parseBounce } from './parse-dsn.ts';

/** A DSN is a short report plus, at most, the returned message; 10 MB is plenty (552 above it). */
export const MAX_BOUNCE_BYTES = 10 * 1024 * 1024;
/** A DSN goes to one envelope sender (RFC 3464 §2.2.1); a few recipients allow for odd MTAs. */
const MAX_RECIPIENTS = 10;

function smtpError(code: number, message: string): Error & { responseCode: number } {
  const err = new Error(message) as Error & { responseCode: number };
  err.responseCode = code;
  return err;
}

/** What one received message did to one transaction. */
export type BounceOutcome = 'recorded' | 'unknown_transaction' | 'not_a_bounce' | 'other_message' | 'already_final';

/**
 * Applies a parsed bounce to the transaction `uuid`, in one database transaction through the
 * lifecycle (lifecycle/): the status change, a `bounced` event, daily_stats (only the first time:
 * a repeated DSN counts once) and, for a hard bounce, a suppression.
 */
export async function recordBounce(
  ctx: AppContext,
  uuid: string,
  parsed: ParsedBounce,
  at = new Date(),
): Promise<BounceOutcome> {
  return applyToTransaction(ctx, uuid, async (trx, tx) => {
    // The VERP address is visible to every recipient (Return-Path), so it can be used as the
    // envelope sender of other mail; a bounce quoting another Message-ID is backscatter, not ours.
    if (parsed.originalMessageId !== null && parsed.originalMessageId !== tx.message_id_header) return 'other_message';
    const bounce: BounceClassification = classifyBounce(parsed, tx.to_email);
    if (bounce.kind === 'not_a_bounce') return 'not_a_bounce';
    const recorded = await recordBounceReport(trx, ctx, {
      tx,
      at,
      reason: bounce.reason,
      facts: { addressBad: bounce.kind === 'hard' },
      // category: what the remote's answer was about, as a reply during delivery would say it
      data: { type: bounce.kind, status: bounce.status, reason: bounce.reason, category: bounce.verdict.category },
    });
    return recorded ? 'recorded' : 'already_final';
  });
}

function readStream(stream: SMTPServerDataStream): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('error', reject);
    stream.on('end', () => resolve(stream.sizeExceeded ? null : Buffer.concat(chunks)));
  });
}

/** The local part of an address at the return-path domain, or null for any other domain. */
function localPartAt(keys: ReturnPathKeys, address: string): string | null {
  const at = address.lastIndexOf('@');
  if (at <= 0 || address.slice(at + 1).toLowerCase() !== keys.returnPathDomain.toLowerCase()) return null;
  return address.slice(0, at);
}

/** The transaction a recipient address names, or null when it is not one of our VERP addresses. */
function transactionOf(keys: ReturnPathKeys, address: string): string | null {
  const local = localPartAt(keys, address);
  return local === null ? null : parseVerp(keys.secret, local);
}

/** The transaction an unsubscribe+<token> recipient (the List-Unsubscribe mailto:) names, or null. */
function unsubscribeOf(keys: ReturnPathKeys, address: string): string | null {
  return parseUnsubscribeAddress(keys.secret, keys.returnPathDomain, address);
}

/**
 * Whether RCPT TO takes the address: any local part at the return-path domain (a feedback loop is
 * registered with an address there, such as fbl@), but not one shaped as our tokens whose HMAC
 * fails: a forged or cut token is nobody's address.
 */
function acceptsRecipient(keys: ReturnPathKeys, address: string): boolean {
  const local = localPartAt(keys, address);
  if (local === null) return false;
  if (/^bounces\+/i.test(local)) return parseVerp(keys.secret, local) !== null;
  if (/^unsubscribe\+/i.test(local)) return parseUnsubscribeLocalPart(keys.secret, local) !== null;
  return true;
}

/** The reply to one received message: an SMTP code and its text. */
export interface ReceiverAnswer {
  code: number;
  message: string;
}

const unique = (uuids: (string | null)[]): string[] => [...new Set(uuids)].filter((uuid) => uuid !== null);

/**
 * What one message to the receiver comes to, for envelope `recipients` (all accepted by
 * acceptsRecipient). Mail to an unsubscribe address unsubscribes whatever it says (RFC 2369 §3.2); a
 * feedback report is acted on and answered 250 even when it matches nothing, as a DSN for an unknown
 * transaction is (a loop may stop reporting to an address that refuses its reports); other mail is
 * a DSN for the VERP recipients, and without one is refused as the domain's other addresses were
 * (550 5.7.1). Throws only when recording failed (the caller answers 451).
 */
export async function receiveMessage(
  ctx: AppContext,
  keys: ReturnPathKeys,
  recipients: string[],
  raw: Buffer,
): Promise<ReceiverAnswer> {
  const { logger } = ctx;
  const targets = unique(recipients.map((address) => transactionOf(keys, address)));
  const unsubscribes = unique(recipients.map((address) => unsubscribeOf(keys, address)));
  const others = recipients.filter((address) => !transactionOf(keys, address) && !unsubscribeOf(keys, address));
  // RFC 2369 §3.2 mailto: the message itself is the request, whatever it says
  for (const uuid of unsubscribes)
    logger.info({ uuid, found: await unsubscribeByMail(ctx, uuid) }, 'unsubscribe by mail');
  const unsubscribed: ReceiverAnswer = { code: 250, message: '2.0.0 Unsubscribe received' };
  if (targets.length === 0 && others.length === 0) return unsubscribed;
  let parsed: ParsedBounce;
  try {
    parsed = await parseBounce(raw);
  } catch (err) {
    logger.warn({ err }, 'an unreadable message reached the bounce receiver');
    return { code: 554, message: '5.6.0 The message could not be parsed' };
  }
  if (parsed.feedback) {
    const tried = await receiveFeedback(ctx, keys, targets, { ...parsed, feedback: parsed.feedback });
    logger.info({ feedbackType: parsed.feedback.feedbackType, tried }, 'feedback report received');
    return { code: 250, message: '2.0.0 Report received' };
  }
  if (targets.length === 0)
    return unsubscribes.length > 0
      ? unsubscribed
      : { code: 550, message: '5.7.1 This address takes only feedback reports (RFC 5965)' };
  for (const uuid of targets) {
    const outcome = await recordBounce(ctx, uuid, parsed);
    logger.info({ uuid, outcome }, 'bounce received');
  }
  return { code: 250, message: '2.0.0 Bounce received' };
}

export interface BounceReceiver {
  port: number;
  close(): Promise<void>;
}

/** Starts the bounce receiver on BOUNCE_SMTP_PORT (opts.port 0 picks a free port, for tests). */
export async function startBounceReceiver(
  ctx: AppContext,
  opts: { port?: number; host?: string } = {},
): Promise<BounceReceiver> {
  const { config, logger } = ctx;
  const keys: ReturnPathKeys = { secret: config.secret!, returnPathDomain: returnPathDomainOf(ctx).toLowerCase() };

  const smtp = new SMTPServer({
    ...(await tlsMaterial(ctx)),
    name: config.smtpPublicHost ?? new URL(config.publicUrl).hostname,
    banner: 'Transact bounce receiver',
    // an MX takes mail from anyone; what it accepts is limited by RCPT instead
    authOptional: true,
    disabledCommands: ['AUTH'],
    size: MAX_BOUNCE_BYTES,
    logger: false,
    maxClients: 200,
    socketTimeout: 60_000,

    onRcptTo(address, session, callback) {
      // RFC 5321 §3.6.2: an open relay is not acceptable; nothing but the return-path domain's own addresses
      if (!acceptsRecipient(keys, address.address))
        return callback(
          smtpError(550, '5.7.1 Relaying denied: this server only accepts bounces for its own return path'),
        );
      if (session.envelope.rcptTo.length >= MAX_RECIPIENTS)
        return callback(smtpError(452, `4.5.3 At most ${MAX_RECIPIENTS} recipients per message`));
      callback();
    },

    onData(stream, session, callback) {
      readStream(stream)
        .then(async (raw) => {
          if (raw === null)
            return callback(smtpError(552, `5.3.4 Message exceeds the size limit of ${MAX_BOUNCE_BYTES} bytes`));
          const answer = await receiveMessage(
            ctx,
            keys,
            session.envelope.rcptTo.map((r) => r.address),
            raw,
          );
          if (answer.code < 400) callback(null, answer.message);
          else callback(smtpError(answer.code, answer.message));
        })
        .catch((err) => {
          logger.error({ err }, 'a bounce could not be recorded');
          callback(smtpError(451, '4.3.0 Temporary failure recording the bounce, try again'));
        });
    },
  });
  smtp.on('error', (err) => logger.warn({ err }, 'bounce receiver error'));

  await new Promise<void>((resolve, reject) => {
    smtp.server.once('error', reject);
    smtp.listen(opts.port ?? config.bounceSmtpPort, opts.host ?? config.host, () => resolve());
  });
  const port = (smtp.server.address() as { port: number }).port;
  logger.info({ port, returnPathDomain: keys.returnPathDomain }, 'bounce receiver listening');
  return {
    port,
    close: () => new Promise<void>((resolve) => smtp.close(() => resolve())),
  };
}

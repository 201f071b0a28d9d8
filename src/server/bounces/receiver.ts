// The bounce receiver (smtp role): the SMTP server behind the return-path domain's MX. It takes
// mail for its own domain only (it never relays): DSNs for VERP addresses whose HMAC verifies,
// classified and recorded as a bounce through the lifecycle (status, event, daily_stats,
// suppression) in one database transaction before answering 250; the List-Unsubscribe mailto:;
// and feedback-loop reports (RFC 5965) at a VERP address or any other address of the domain, the
// one a provider's loop is registered with (complaints.service.ts). It is also the MX of every
// receiving domain (docs/receiving.md): any address of such a domain is taken and the message handed
// to inbound/receive.ts; one message goes to one account (RCPT for another answers 452, and the
// client sends that copy in a transaction of its own). Hooks reject with a responseCode.
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { domainOf } from '../core/addresses.ts';
import { receivingDomainFor } from '../domains/domains.service.ts';
import { type InboundTarget, receiveInbound } from '../inbound/receive.ts';
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
/** Recipients of one received message (RFC 5321 §4.5.3.1.8 asks a server to take at least 100). */
const MAX_INBOUND_RECIPIENTS = 100;

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

/** The whole DATA stream, or null past MAX_BOUNCE_BYTES (the rest is read and dropped). */
function readStream(stream: SMTPServerDataStream): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BOUNCE_BYTES) chunks.push(chunk);
    });
    stream.on('error', reject);
    stream.on('end', () => resolve(stream.sizeExceeded || size > MAX_BOUNCE_BYTES ? null : Buffer.concat(chunks)));
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

/**
 * What the MX listener keeps per session: the connections each address holds (at most
 * SMTP_MAX_CONNECTIONS_PER_IP, as on submission) and the account the current message goes to, once a
 * recipient at a receiving domain was taken (docs/receiving.md).
 */
function mxSessions(ctx: AppContext) {
  const inbound = new Map<string, InboundTarget>();
  const perAddress = new Map<string, number>();
  const counted = new Set<string>();
  return {
    /** Counts a new connection, or answers the 421 that refuses it. */
    admit(session: SMTPServerSession): Error | null {
      const n = perAddress.get(session.remoteAddress) ?? 0;
      if (n >= ctx.config.smtpMaxConnectionsPerIp)
        return smtpError(421, '4.7.0 Too many connections from your address, try again later');
      perAddress.set(session.remoteAddress, n + 1);
      counted.add(session.id);
      return null;
    },
    closed(session: SMTPServerSession): void {
      inbound.delete(session.id);
      if (!counted.delete(session.id)) return;
      const n = (perAddress.get(session.remoteAddress) ?? 1) - 1;
      if (n > 0) perAddress.set(session.remoteAddress, n);
      else perAddress.delete(session.remoteAddress);
    },
    newMessage(session: SMTPServerSession): void {
      inbound.delete(session.id);
    },
    targetOf(session: SMTPServerSession): InboundTarget | undefined {
      return inbound.get(session.id);
    },
    /** RCPT TO an address of a receiving domain: null once taken, else the SMTP error to answer. */
    async inboundRecipient(address: string, session: SMTPServerSession): Promise<Error | null> {
      const domain = await receivingDomainFor(ctx, domainOf(address));
      if (!domain) return smtpError(550, '5.7.1 Relaying denied: no such domain here');
      const current = inbound.get(session.id);
      const taken = session.envelope.rcptTo.length;
      if ((taken > 0 && !current) || (current && current.customerId !== domain.customer_id))
        return smtpError(452, '4.5.3 Send this recipient in a separate transaction');
      if (taken >= MAX_INBOUND_RECIPIENTS)
        return smtpError(452, `4.5.3 At most ${MAX_INBOUND_RECIPIENTS} recipients per message`);
      inbound.set(session.id, {
        customerId: domain.customer_id,
        domainId: domain.id,
        refuseDmarcReject: domain.inbound_refuse_dmarc_reject,
      });
      return null;
    },
  };
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

  const sessions = mxSessions(ctx);

  const smtp = new SMTPServer({
    ...(await tlsMaterial(ctx)),
    name: config.smtpPublicHost ?? new URL(config.publicUrl).hostname,
    banner: 'Transact MX',
    // an MX takes mail from anyone; what it accepts is limited by RCPT instead
    authOptional: true,
    disabledCommands: ['AUTH'],
    size: Math.max(MAX_BOUNCE_BYTES, config.inboundMaxMessageBytes),
    logger: false,
    maxClients: 200,
    socketTimeout: 60_000,

    onConnect: (session, callback) => callback(sessions.admit(session) ?? undefined),
    onClose: (session) => sessions.closed(session),
    onMailFrom(_address, session, callback) {
      sessions.newMessage(session);
      callback();
    },

    onRcptTo(address, session, callback) {
      if (!acceptsRecipient(keys, address.address)) {
        sessions.inboundRecipient(address.address, session).then(
          (refused) => callback(refused ?? undefined),
          (err) => {
            logger.warn({ err }, 'a recipient could not be looked up');
            callback(smtpError(451, '4.3.0 Temporary failure, try again'));
          },
        );
        return;
      }
      if (sessions.targetOf(session))
        return callback(smtpError(452, '4.5.3 Send this recipient in a separate transaction'));
      if (session.envelope.rcptTo.length >= MAX_RECIPIENTS)
        return callback(smtpError(452, `4.5.3 At most ${MAX_RECIPIENTS} recipients per message`));
      callback();
    },

    onData(stream, session, callback) {
      const target = sessions.targetOf(session);
      const recipients = session.envelope.rcptTo.map((r) => r.address);
      const answering = target
        ? receiveInbound(
            ctx,
            target,
            {
              ip: session.remoteAddress,
              helo: session.hostNameAppearsAs,
              mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              rcptTo: recipients,
            },
            stream,
          )
        : readStream(stream).then((raw) =>
            raw === null
              ? { code: 552, message: `5.3.4 Message exceeds the size limit of ${MAX_BOUNCE_BYTES} bytes` }
              : receiveMessage(ctx, keys, recipients, raw),
          );
      answering
        .then((answer) => {
          if (answer.code < 400) callback(null, answer.message);
          else callback(smtpError(answer.code, answer.message));
        })
        .catch((err) => {
          logger.error({ err }, target ? 'a received message could not be stored' : 'a bounce could not be recorded');
          callback(smtpError(451, '4.3.0 Temporary failure storing the message, try again'));
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

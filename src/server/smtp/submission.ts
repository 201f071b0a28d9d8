// SMTP submission (the smtp role): AUTH PLAIN/LOGIN with the customer's SMTP credentials, required
// before MAIL (530); STARTTLS; size enforced at MAIL FROM (SIZE=) and after DATA (552); recipients
// from the envelope, so Bcc works; the group from X-Transact-Group, which is removed; messages
// with bare CR or LF refused, so nothing we relay can end DATA early at the next hop (SMTP
// smuggling); 250 only after the COMMIT. Hooks reject with a responseCode (STYLE §5).
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Server, type Socket, createServer } from 'node:net';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import type { AppContext } from '../context.ts';
import { customerForSmtpLogin } from '../credentials/credentials.service.ts';
import { ApiError } from '../http/errors.ts';
import { AddressError, domainOf, parseEmail } from '../sending/addresses.ts';
import { DEFAULT_GROUP, MAX_RECIPIENTS, type Submission } from '../sending/mail.schema.ts';
import { accept, prepare } from '../sending/sending.service.ts';
import { parseMessageHeaders } from './headers.ts';
import type { Address } from '../db/schema.ts';

const MAX_AUTH_FAILURES = 5;

function smtpError(code: number, message: string): Error & { responseCode: number } {
  const err = new Error(message) as Error & { responseCode: number };
  err.responseCode = code;
  return err;
}

/** The first offset of a CR not followed by LF, or an LF not preceded by CR; -1 if none. */
export function findBareLineBreak(raw: Buffer): number {
  for (let i = 0; i < raw.length; i++) {
    const b = raw[i];
    if (b === 0x0a && (i === 0 || raw[i - 1] !== 0x0d)) return i;
    if (b === 0x0d && raw[i + 1] !== 0x0a) return i;
  }
  return -1;
}

/** The header block's end (offset of the blank line) in a CRLF message. */
function headerEnd(raw: Buffer): number {
  const i = raw.indexOf('\r\n\r\n');
  return i < 0 ? raw.length : i + 2;
}

/**
 * Removes every X-Transact-Group and X-Transact-Attachments header (with continuation lines); with `messageId`, replaces any
 * Message-ID header (missing or unusable) with that one.
 */
export function rewriteHeaders(raw: Buffer, messageId: string | null): Buffer {
  const end = headerEnd(raw);
  const lines = raw.subarray(0, end).toString('latin1').split('\r\n');
  const drop = messageId ? /^(x-transact-group|x-transact-attachments|message-id)\s*:/i : /^(x-transact-group|x-transact-attachments)\s*:/i;
  const kept: string[] = [];
  let dropping = false;
  for (const line of lines) {
    if (/^[ \t]/.test(line) && dropping) continue;
    dropping = drop.test(line);
    if (!dropping) kept.push(line);
  }
  let head = kept.join('\r\n');
  if (messageId) head = `Message-ID: ${messageId}\r\n${head}`;
  return Buffer.concat([Buffer.from(head, 'latin1'), raw.subarray(end)]);
}

interface SessionState {
  customerId?: number;
  authFailures: number;
}

/**
 * Loads the STARTTLS key pair from config, or uses a self-signed one for development: generated
 * once (about 3 s of CPU) and kept in DATA_DIR so later starts are quick.
 */
export async function tlsMaterial(ctx: AppContext): Promise<{ key: string; cert: string }> {
  const { smtpTlsKeyFile, smtpTlsCertFile, dataDir, dataPath } = ctx.config;
  if (smtpTlsKeyFile && smtpTlsCertFile) return { key: readFileSync(smtpTlsKeyFile, 'utf8'), cert: readFileSync(smtpTlsCertFile, 'utf8') };
  const host = ctx.config.smtpPublicHost ?? new URL(ctx.config.publicUrl).hostname;
  const dir = dataDir === 'memory://' ? null : path.join(dataPath, 'smtp-tls');
  if (dir && existsSync(path.join(dir, `${host}.key`)) && existsSync(path.join(dir, `${host}.crt`))) {
    return { key: readFileSync(path.join(dir, `${host}.key`), 'utf8'), cert: readFileSync(path.join(dir, `${host}.crt`), 'utf8') };
  }
  const { generate } = await import('selfsigned');
  const pems = await generate([{ name: 'commonName', value: host }], { notAfterDate: new Date(Date.now() + 825 * 86_400_000), keySize: 2048 });
  if (dir) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `${host}.key`), pems.private, { mode: 0o600 });
    writeFileSync(path.join(dir, `${host}.crt`), pems.cert);
  }
  ctx.logger.warn({ host }, 'SMTP STARTTLS uses a self-signed certificate; set SMTP_TLS_KEY_FILE and SMTP_TLS_CERT_FILE in production');
  return { key: pems.private, cert: pems.cert };
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

export interface SubmissionServer {
  port: number;
  close(): Promise<void>;
}

/** Starts the submission server on SMTP_PORT (0 picks a free port, for tests). */
export async function startSubmissionServer(ctx: AppContext, opts: { port?: number; host?: string } = {}): Promise<SubmissionServer> {
  const { config, logger } = ctx;
  const host = opts.host ?? config.host;
  const states = new WeakMap<SMTPServerSession, SessionState>();
  const state = (session: SMTPServerSession) => {
    let s = states.get(session);
    if (!s) {
      s = { authFailures: 0 };
      states.set(session, s);
    }
    return s;
  };

  const smtp = new SMTPServer({
    ...(await tlsMaterial(ctx)),
    name: config.smtpPublicHost ?? new URL(config.publicUrl).hostname,
    banner: 'Transact ESMTP',
    authMethods: ['PLAIN', 'LOGIN'],
    authOptional: false,
    allowInsecureAuth: config.smtpAllowInsecureAuth ?? isLoopback(host),
    size: config.smtpMaxMessageBytes,
    logger: false,
    maxClients: 1000,
    socketTimeout: 60_000,

    onAuth(auth, session, callback) {
      const s = state(session);
      customerForSmtpLogin(ctx, auth.username ?? '', auth.password ?? '')
        .then((customerId) => {
          if (customerId === null) {
            s.authFailures++;
            // 421 closes the connection (RFC 5321 §3.8)
            if (s.authFailures >= MAX_AUTH_FAILURES) return callback(smtpError(421, '4.7.0 Too many failed authentication attempts, closing connection'));
            return callback(smtpError(535, '5.7.8 Authentication credentials invalid'));
          }
          s.customerId = customerId;
          callback(null, { user: customerId });
        })
        .catch((err) => {
          logger.error({ err }, 'SMTP AUTH lookup failed');
          callback(smtpError(454, '4.7.0 Temporary authentication failure'));
        });
    },

    onMailFrom(_address, session, callback) {
      if (!session.user) return callback(smtpError(530, '5.7.0 Authentication required'));
      callback();
    },

    onRcptTo(address, session, callback) {
      if (session.envelope.rcptTo.length >= MAX_RECIPIENTS) return callback(smtpError(452, `4.5.3 At most ${MAX_RECIPIENTS} recipients per message`));
      try {
        parseEmail(address.address);
      } catch {
        return callback(smtpError(553, '5.1.3 Recipient address is not valid'));
      }
      callback();
    },

    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if ((stream as unknown as { sizeExceeded?: boolean }).sizeExceeded) {
          return callback(smtpError(552, `5.3.4 Message exceeds the size limit of ${config.smtpMaxMessageBytes} bytes`));
        }
        void acceptData(ctx, session, Buffer.concat(chunks))
          .then((queued) => callback(null, `2.0.0 Queued as ${queued}`))
          .catch((err) => {
            if ((err as { responseCode?: number }).responseCode) return callback(err);
            logger.error({ err }, 'SMTP message could not be stored');
            callback(smtpError(451, '4.3.0 Temporary failure storing the message, try again'));
          });
      });
    },
  });
  smtp.on('error', (err) => logger.warn({ err }, 'SMTP submission error'));

  // Our own listener hands each socket to smtp-server. It answers an HTTP request line with 421;
  // we answer 554 (permanent: this port will never speak HTTP).
  const server: Server = createServer((socket: Socket) => {
    const write = socket.write.bind(socket) as (chunk: unknown, ...rest: unknown[]) => boolean;
    socket.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (typeof chunk === 'string' && chunk.startsWith('421') && chunk.includes('HTTP requests not allowed')) {
        chunk = '554 5.7.0 HTTP is not spoken here; this is an SMTP server\r\n';
      }
      return write(chunk, ...rest);
    }) as typeof socket.write;
    smtp.connect(socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? config.smtpPort, host, () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  logger.info({ port }, 'smtp role listening');
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        smtp.close(() => resolve());
      }),
  };
}

/** Checks and stores one message received over SMTP; resolves with the transaction uuids. */
async function acceptData(ctx: AppContext, session: SMTPServerSession, raw: Buffer): Promise<string> {
  const customerId = session.user as unknown as number;
  if (findBareLineBreak(raw) >= 0) throw smtpError(554, '5.6.0 Message contains a bare CR or LF; lines must end with CRLF');
  const parsed = parseMessageHeaders(raw);
  const from = parsed.from;
  if (from.length !== 1) throw smtpError(550, '5.6.0 The message needs exactly one From address');
  let fromEmail: string;
  try {
    fromEmail = parseEmail(from[0].email);
  } catch (err) {
    if (err instanceof AddressError) throw smtpError(553, '5.1.7 The From address is not valid');
    throw err;
  }
  const recipients = session.envelope.rcptTo.map((r) => ({ email: parseEmail(r.address), name: null }));
  if (recipients.length === 0) throw smtpError(554, '5.5.1 No valid recipients');
  const group = parsed.group?.replace(/[\r\n\u0000]+/g, ' ').trim().slice(0, 100) || DEFAULT_GROUP;
  const submission: Submission = {
    from: { email: fromEmail, name: from[0].name },
    to: parsed.to,
    cc: parsed.cc,
    bcc: [],
    replyTo: parsed.replyTo,
    subject: (parsed.subject ?? '').replace(/[\r\n\u0000]+/g, ' ').slice(0, 998),
    html: null,
    text: null,
    headers: {},
    attachments: [],
    group,
    tags: [],
    metadata: null,
    ...(parsed.attachments ? { onlineAttachmentId: parsed.attachments } : {}),
  };
  const added = parsed.messageId ? null : `<${randomUUID()}@${domainOf(fromEmail)}>`;
  const messageIdHeader = added ?? parsed.messageId!;
  let prepared;
  try {
    prepared = await prepare(ctx, customerId, submission, { raw: rewriteHeaders(raw, added), recipients, messageIdHeader });
  } catch (err) {
    if (err instanceof ApiError && err.code === 'domain_not_verified') throw smtpError(550, `5.7.1 ${err.message}`);
    if (err instanceof ApiError && err.code === 'validation_failed') throw smtpError(550, `5.6.0 ${err.message}`);
    throw err;
  }
  const [accepted] = await accept(ctx, customerId, [prepared]);
  return accepted.map((a) => a.trans_uuid).join(' ');
}

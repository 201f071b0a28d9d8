// SMTP submission (the smtp role): AUTH PLAIN/LOGIN with the customer's SMTP credentials, or any
// username with a named API key as password (docs/architecture.md §7 "API keys": a deleted key stops
// at the next MAIL, a sending_access key with a domain sends only From it), required before MAIL
// (530); STARTTLS; size enforced at MAIL FROM (SIZE=) and after DATA (552); recipients
// from the envelope, so Bcc works; the group from X-Transact-Group, which is removed; messages
// with bare CR or LF refused, so nothing we relay can end DATA early at the next hop (SMTP
// smuggling); 250 only after the COMMIT. Hooks reject with a responseCode.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Server, type Socket, createServer } from 'node:net';
import {
  SMTPServer,
  type SMTPServerAddress,
  type SMTPServerAuthentication,
  type SMTPServerAuthenticationResponse,
  type SMTPServerDataStream,
  type SMTPServerSession,
} from 'smtp-server';
import type { AppContext } from '../core/context.ts';
import type { InFlow } from '../delivery/in-flow.ts';
import {
  grantForNamedKey,
  grantForSmtpLogin,
  type KeyGrant,
  requireSendableFrom,
} from '../credentials/api-keys.service.ts';
import { DomainError } from '../core/errors.ts';
import { AddressError, domainOf, parseEmail } from '../core/addresses.ts';
import { MAX_RECIPIENTS } from '../../contract/values.ts';
import { DEFAULT_GROUP, type Submission } from '../sending/mail.schema.ts';
import { accept, prepare } from '../sending/sending.service.ts';
import { isDatabaseUnavailable, isStorageFull } from '../db/availability.ts';
import { belowFreeSpaceFloor } from '../core/free-space.ts';
import { parseMessageHeaders } from './headers.ts';

const MAX_AUTH_FAILURES = 5;
const MAX_CLIENTS = 1000;
// Postfix's anvil and stress-dependent timeouts: an idle session may wait a minute
// normally, ten seconds while over half of MAX_CLIENTS are connected, so idle connections cannot
// hold every slot.
const IDLE_TIMEOUT_MS = 60_000;
const STRESSED_IDLE_TIMEOUT_MS = 10_000;
const IDLE_LINE = '421 4.4.2 Idle too long, closing connection\r\n';
const SHUTDOWN_LINE = '421 4.3.2 Service shutting down, try again later\r\n';

/** The connection object smtp-server keeps per session: the parts of its SMTPConnection used here. */
interface Connection {
  session: SMTPServerSession;
  send(code: number, message: string): void;
  close(): void;
  _armTimeout?: () => void;
  _dataStream?: unknown;
  _handlerPending?: boolean;
  _socket?: Socket;
}

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
 * Removes every X-Transact-Group and X-Transact-Attachments header (with continuation lines); with `messageId`,
 * replaces any
 * Message-ID header (missing or unusable) with that one.
 */
export function rewriteHeaders(raw: Buffer, messageId: string | null): Buffer {
  const end = headerEnd(raw);
  const lines = raw.subarray(0, end).toString('latin1').split('\r\n');
  const drop = messageId
    ? /^(x-transact-group|x-transact-attachments|message-id)\s*:/i
    : /^(x-transact-group|x-transact-attachments)\s*:/i;
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
  /** What the login allows; with a named key, its token, looked up again at each MAIL. */
  grant?: KeyGrant;
  namedKey?: string;
  authFailures: number;
}

/**
 * Loads the STARTTLS key pair from config, or uses a self-signed one for development: generated
 * once (about 3 s of CPU) and kept in DATA_DIR so later starts are quick.
 */
export async function tlsMaterial(ctx: AppContext): Promise<{ key: string; cert: string }> {
  const { smtpTlsKeyFile, smtpTlsCertFile, dataDir, dataPath } = ctx.config;
  if (smtpTlsKeyFile && smtpTlsCertFile)
    return { key: readFileSync(smtpTlsKeyFile, 'utf8'), cert: readFileSync(smtpTlsCertFile, 'utf8') };
  const host = ctx.config.smtpPublicHost ?? new URL(ctx.config.publicUrl).hostname;
  const dir = dataDir === 'memory://' ? null : path.join(dataPath, 'smtp-tls');
  if (dir && existsSync(path.join(dir, `${host}.key`)) && existsSync(path.join(dir, `${host}.crt`))) {
    return {
      key: readFileSync(path.join(dir, `${host}.key`), 'utf8'),
      cert: readFileSync(path.join(dir, `${host}.crt`), 'utf8'),
    };
  }
  const { generate } = await import('selfsigned');
  const pems = await generate([{ name: 'commonName', value: host }], {
    notAfterDate: new Date(Date.now() + 825 * 86_400_000),
    keySize: 2048,
  });
  if (dir) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `${host}.key`), pems.private, { mode: 0o600 });
    writeFileSync(path.join(dir, `${host}.crt`), pems.cert);
  }
  ctx.logger.warn(
    { host },
    'SMTP STARTTLS uses a self-signed certificate; set SMTP_TLS_KEY_FILE and SMTP_TLS_CERT_FILE in production',
  );
  return { key: pems.private, cert: pems.cert };
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

export interface SubmissionServer {
  port: number;
  /** Drains: see SubmissionListener.drain; `graceMs` defaults to SHUTDOWN_GRACE_SECONDS. */
  close(graceMs?: number): Promise<void>;
}

/** Starts the submission server on SMTP_PORT (0 picks a free port, for tests). */
export async function startSubmissionServer(
  ctx: AppContext,
  opts: { port?: number; host?: string } = {},
): Promise<SubmissionServer> {
  const { config, logger } = ctx;
  const host = opts.host ?? config.host;
  const submission = new SubmissionListener(ctx, await tlsMaterial(ctx), host);
  const server: Server = createServer((socket: Socket) => submission.admit(socket));
  await listen(server, opts.port ?? config.smtpPort, host);
  const port = (server.address() as { port: number }).port;
  logger.info({ port }, 'smtp role listening');
  return { port, close: (graceMs = config.shutdownGraceSeconds * 1000) => submission.drain(server, graceMs) };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // a backlog of MAX_CLIENTS: a burst of that many connects waits in the kernel's queue to be
    // answered (greeted or refused) rather than overflowing it (Node's default is 511), which
    // leaves clients connected but unanswered until the kernel retries the handshake
    server.listen({ port, host, backlog: MAX_CLIENTS }, () => resolve());
  });
}

type Callback = (err?: Error | null) => void;

/** One running submission server: smtp-server with our hooks, and what they share across sessions. */
class SubmissionListener {
  readonly #ctx: AppContext;
  readonly #smtp: SMTPServer;
  readonly #inFlow: InFlow;
  readonly #sessions = new WeakMap<SMTPServerSession, SessionState>();
  /** Each connection's remote address, for the per-address limit. */
  readonly #addressOf = new WeakMap<Connection, string>();
  #stressed = false;
  #draining = false;

  constructor(ctx: AppContext, tls: { key: string; cert: string }, host: string) {
    const { config } = ctx;
    this.#ctx = ctx;
    this.#smtp = new SMTPServer({
      ...tls,
      name: config.smtpPublicHost ?? new URL(config.publicUrl).hostname,
      banner: 'Transact ESMTP',
      authMethods: ['PLAIN', 'LOGIN'],
      authOptional: false,
      allowInsecureAuth: config.smtpAllowInsecureAuth ?? isLoopback(host),
      size: config.smtpMaxMessageBytes,
      logger: false,
      maxClients: MAX_CLIENTS,
      socketTimeout: IDLE_TIMEOUT_MS,
      // a session ended: the stress-dependent idle timeout may relax again
      onClose: () => setImmediate(() => this.#adjustIdleTimeout()),
      onAuth: (auth, session, callback) => this.#onAuth(auth, session, callback),
      onMailFrom: (_address, session, callback) => this.#onMailFrom(session, callback),
      onRcptTo: (address, session, callback) => this.#onRcptTo(address, session, callback),
      onData: (stream, session, callback) => this.#onData(stream, session, callback),
    });
    this.#smtp.on('error', (err) => ctx.logger.warn({ err }, 'SMTP submission error'));
    this.#inFlow = ctx.inFlow;
  }

  #state(session: SMTPServerSession): SessionState {
    let s = this.#sessions.get(session);
    if (!s) {
      s = { authFailures: 0 };
      this.#sessions.set(session, s);
    }
    return s;
  }

  #connections(): Set<Connection> {
    return this.#smtp.connections;
  }

  #onAuth(
    auth: SMTPServerAuthentication,
    session: SMTPServerSession,
    callback: (err: Error | null, response?: SMTPServerAuthenticationResponse) => void,
  ): void {
    const s = this.#state(session);
    grantForSmtpLogin(this.#ctx, auth.username ?? '', auth.password ?? '')
      .then((grant) => {
        if (grant === null) {
          s.authFailures++;
          // 421 closes the connection (RFC 5321 §3.8)
          if (s.authFailures >= MAX_AUTH_FAILURES)
            return callback(smtpError(421, '4.7.0 Too many failed authentication attempts, closing connection'));
          return callback(smtpError(535, '5.7.8 Authentication credentials invalid'));
        }
        s.customerId = grant.customerId;
        s.grant = grant;
        if (grant.keyId !== null) s.namedKey = auth.password ?? undefined;
        callback(null, { user: grant.customerId });
      })
      .catch((err) => {
        // the database away: the same temporary answer as at MAIL, RCPT and DATA
        if (isDatabaseUnavailable(err))
          return callback(smtpError(451, '4.3.0 The database is unavailable, try again later'));
        this.#ctx.logger.error({ err }, 'SMTP AUTH lookup failed');
        callback(smtpError(454, '4.7.0 Temporary authentication failure'));
      });
  }

  #onMailFrom(session: SMTPServerSession, callback: Callback) {
    if (!session.user) return callback(smtpError(530, '5.7.0 Authentication required'));
    // delivery behind: the answer waits (at most SMTP_IN_FLOW_DELAY_MS), the message is not refused
    void this.#keyStillValid(this.#state(session))
      .then((valid) =>
        valid
          ? this.#inFlow.admit().then(() => this.#canAccept())
          : smtpError(530, '5.7.8 The API key was deleted; authenticate again'),
      )
      .then(callback, (err) => {
        this.#ctx.logger.error({ err }, 'SMTP API key lookup failed');
        callback(smtpError(451, '4.3.0 Temporary failure, try again later'));
      });
  }

  #onRcptTo(address: SMTPServerAddress, session: SMTPServerSession, callback: Callback) {
    if (session.envelope.rcptTo.length >= MAX_RECIPIENTS)
      return callback(smtpError(452, `4.5.3 At most ${MAX_RECIPIENTS} recipients per message`));
    try {
      parseEmail(address.address);
    } catch {
      return callback(smtpError(553, '5.1.3 Recipient address is not valid'));
    }
    void this.#canAccept().then(callback);
  }

  #onData(
    stream: SMTPServerDataStream,
    session: SMTPServerSession,
    callback: (err?: Error | null, message?: string) => void,
  ): void {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      if (stream.sizeExceeded) {
        const limit = this.#ctx.config.smtpMaxMessageBytes;
        return callback(smtpError(552, `5.3.4 Message exceeds the size limit of ${limit} bytes`));
      }
      void acceptData(this.#ctx, session, this.#state(session).grant, Buffer.concat(chunks))
        .then((queued) => callback(null, `2.0.0 Queued as ${queued}`))
        .catch((err) => callback(this.#dataRefusal(err)))
        .finally(() => {
          // draining: the transaction is answered, so the session ends here (no 421 mid-transaction)
          if (this.#draining) this.#closeSession(session);
        });
    });
  }

  /** The answer to a message that could not be taken: its own code, or a temporary one. */
  #dataRefusal(err: unknown): Error {
    const { logger } = this.#ctx;
    if ((err as { responseCode?: number }).responseCode) return err as Error;
    if (isStorageFull(err) || (err instanceof DomainError && err.code === 'storage_full')) {
      logger.warn({ err }, 'SMTP message refused: out of storage space');
      return smtpError(452, '4.3.1 Insufficient system storage, try again later');
    }
    if (isDatabaseUnavailable(err)) {
      logger.warn({ err }, 'SMTP message refused: the database is unavailable');
      return smtpError(451, '4.3.0 The database is unavailable, try again later');
    }
    logger.error({ err }, 'SMTP message could not be stored');
    return smtpError(451, '4.3.0 Temporary failure storing the message, try again');
  }

  /** Before MAIL FROM and RCPT TO: a temporary refusal while mail cannot be stored. */
  async #canAccept(): Promise<Error | undefined> {
    if (await belowFreeSpaceFloor(this.#ctx))
      return smtpError(452, '4.3.1 Insufficient system storage, try again later');
    if (!(await this.#ctx.databaseProbe.get()))
      return smtpError(451, '4.3.0 The database is unavailable, try again later');
    return undefined;
  }

  /** A named key's session: the key still exists (a deleted one is refused from its next MAIL on). */
  async #keyStillValid(s: SessionState): Promise<boolean> {
    return s.namedKey === undefined || (await grantForNamedKey(this.#ctx, s.namedKey)) !== null;
  }

  #closeSession(session: SMTPServerSession): void {
    for (const c of this.#connections()) if (c.session === session) c.send(421, SHUTDOWN_LINE.slice(4, -2));
  }

  // idle timeout by load: stressed above half of MAX_CLIENTS, relaxed again at a quarter (so the
  // timeout does not flap while the idle ones are being closed); entering stress re-arms every
  // waiting connection with the shorter timeout
  #adjustIdleTimeout(): void {
    const size = this.#smtp.connections.size;
    if (!this.#stressed && size > MAX_CLIENTS / 2) {
      this.#stressed = true;
      this.#smtp.options.socketTimeout = STRESSED_IDLE_TIMEOUT_MS;
      this.#ctx.logger.warn({ connections: size }, 'SMTP under stress: idle sessions are closed after 10 s');
      // smtp-server arms a socket's timeout once per command; re-arm the waiting ones with the new value
      for (const c of this.#connections()) if (!c._handlerPending) c._armTimeout?.();
    } else if (this.#stressed && size <= MAX_CLIENTS / 4) {
      this.#stressed = false;
      this.#smtp.options.socketTimeout = IDLE_TIMEOUT_MS;
    }
  }

  // Held connections are counted from smtp-server's own set, not from 'close' on our socket: its
  // STARTTLS upgrade removes every listener from the plain socket, so a count kept that way never
  // went down for a TLS session and an address was refused for good after 50 of them.
  #heldBy(address: string): number {
    let n = 0;
    for (const c of this.#connections()) if (this.#addressOf.get(c) === address) n++;
    return n;
  }

  /**
   * Our own listener hands each socket to smtp-server, after the per-address limit. It answers an
   * HTTP request line with 421; we answer 554 (permanent: this port will never speak HTTP). Its
   * idle-timeout and shutdown lines get their enhanced status codes here.
   */
  admit(socket: Socket): void {
    const address = socket.remoteAddress ?? '';
    if (this.#draining || this.#heldBy(address) >= this.#ctx.config.smtpMaxConnectionsPerIp) {
      socket.on('error', () => {});
      socket.end(
        this.#draining ? SHUTDOWN_LINE : '421 4.7.0 Too many connections from your address, try again later\r\n',
      );
      return;
    }
    rewriteRefusalLines(socket);
    this.#smtp.connect(socket);
    for (const c of this.#connections()) if (c._socket === socket) this.#addressOf.set(c, address);
    setImmediate(() => this.#adjustIdleTimeout());
  }

  /**
   * Stops accepting; sessions outside a transaction are closed with a 421 now, those inside one
   * (after MAIL FROM) finish it and are closed after its answer; whatever is left after
   * `graceMs` is closed with a 421 (the client retries; nothing was acknowledged).
   */
  drain(server: Server, graceMs: number): Promise<void> {
    return new Promise<void>((resolve) => {
      this.#draining = true;
      server.close();
      const idle = (c: Connection) => !c.session.envelope?.mailFrom && !c._dataStream && !c._handlerPending;
      for (const c of this.#connections()) if (idle(c)) c.send(421, SHUTDOWN_LINE.slice(4, -2));
      const deadline = Date.now() + graceMs;
      const check = () => {
        for (const c of this.#connections()) if (idle(c)) c.send(421, SHUTDOWN_LINE.slice(4, -2));
        if (this.#connections().size > 0 && Date.now() < deadline) {
          setTimeout(check, 50).unref();
          return;
        }
        this.#smtp.options.closeTimeout = 1;
        this.#smtp.close(() => resolve());
      };
      check();
    });
  }
}

/** smtp-server's own 421 lines, rewritten as they are written to the socket. */
function rewriteRefusalLines(socket: Socket): void {
  const write = socket.write.bind(socket) as (chunk: unknown, ...rest: unknown[]) => boolean;
  socket.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (typeof chunk === 'string' && chunk.startsWith('421')) {
      if (chunk.includes('HTTP requests not allowed'))
        chunk = '554 5.7.0 HTTP is not spoken here; this is an SMTP server\r\n';
      else if (chunk.includes('Timeout - closing connection')) chunk = IDLE_LINE;
      else if (chunk.includes('Server shutting down')) chunk = SHUTDOWN_LINE;
    }
    return write(chunk, ...rest);
  }) as typeof socket.write;
}

/** Checks and stores one message received over SMTP; resolves with the transaction uuids. */
async function acceptData(
  ctx: AppContext,
  session: SMTPServerSession,
  grant: KeyGrant | undefined,
  raw: Buffer,
): Promise<string> {
  const customerId = session.user as number;
  if (findBareLineBreak(raw) >= 0)
    throw smtpError(554, '5.6.0 Message contains a bare CR or LF; lines must end with CRLF');
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
  try {
    if (grant) requireSendableFrom(grant, fromEmail);
  } catch (err) {
    if (err instanceof DomainError) throw smtpError(550, `5.7.1 ${err.message}`);
    throw err;
  }
  const recipients = session.envelope.rcptTo.map((r) => ({ email: parseEmail(r.address), name: null }));
  if (recipients.length === 0) throw smtpError(554, '5.5.1 No valid recipients');
  const group =
    parsed.group
      ?.replace(/[\r\n\u0000]+/g, ' ')
      .trim()
      .slice(0, 100) || DEFAULT_GROUP;
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
  let prepared: Awaited<ReturnType<typeof prepare>>;
  try {
    prepared = await prepare(ctx, customerId, submission, {
      raw: rewriteHeaders(raw, added),
      recipients,
      messageIdHeader,
    });
  } catch (err) {
    if (err instanceof DomainError && err.code === 'domain_not_verified') throw smtpError(550, `5.7.1 ${err.message}`);
    if (err instanceof DomainError && err.code === 'validation_failed') throw smtpError(550, `5.6.0 ${err.message}`);
    throw err;
  }
  const [accepted] = await accept(ctx, customerId, [prepared]);
  return accepted.map((a) => a.trans_uuid).join(' ');
}

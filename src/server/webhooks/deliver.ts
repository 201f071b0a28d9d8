// One webhook HTTP request: signed per Standard Webhooks, Basic
// authentication when configured, 10 s for connect and answer, redirects not followed, the first
// 1 KB of the answer kept. Connections go through request-filtering-agent, which checks the address
// actually dialled after DNS resolution (so DNS rebinding cannot reach our network) and exempts only
// WEBHOOK_ALLOWED_NETWORKS; its agents keep connections alive per host.
import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { flatten } from './payload.ts';

export const USER_AGENT = 'Transact-Webhooks/1.0 (+https://github.com/transact; Standard Webhooks)';
export const TIMEOUT_MS = 10_000;
const BODY_KEEP_BYTES = 1024;
// an answer larger than this is cut off (the connection is dropped, not reused)
const BODY_READ_LIMIT = 64 * 1024;

export interface WebhookTarget {
  url: string;
  verb: string;
  msgId: string;
  /** whsec_… */
  secret: string;
  auth: { username: string; password: string } | null;
  payload: Record<string, unknown>;
}

export interface AttemptResult {
  at: Date;
  durationMs: number;
  statusCode: number | null;
  /** a network error or timeout, when there was no answer */
  error: string | null;
  body: string | null;
  retryAfter?: string;
}

/** The request as the logs show it: the headers without the Authorization value. */
export interface PreparedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | null;
}

// Signed as Standard Webhooks specifies (v1 = base64 HMAC-SHA256 of `${id}.${timestamp}.${body}`
// with the secret's base64-decoded key), with node:crypto rather than the `standardwebhooks`
// package's pure-JavaScript SHA-256: a bench:webhooks profile put ~4 % of the worker in that
// package's signing. The tests verify every delivery with `standardwebhooks` itself.
const keys = new Map<string, Buffer>();
function keyFor(secret: string): Buffer {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= 1000) keys.clear();
    key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
    keys.set(secret, key);
  }
  return key;
}

export function signature(secret: string, msgId: string, now: Date, signed: string): string {
  return `v1,${createHmac('sha256', keyFor(secret))
    .update(`${msgId}.${Math.floor(now.getTime() / 1000)}.${signed}`)
    .digest('base64')}`;
}

export function prepareRequest(target: WebhookTarget, now: Date): PreparedRequest {
  const method = target.verb.toUpperCase();
  const inQuery = method === 'GET' || method === 'DELETE';
  let url = target.url;
  let body: string | null = null;
  let signed: string;
  if (inQuery) {
    const query = new URLSearchParams(flatten(target.payload)).toString();
    const u = new URL(target.url);
    // the payload's parameters come after any the customer put in the URL; the signature covers them
    u.search = u.search ? `${u.search.slice(1)}&${query}` : query;
    url = u.toString();
    signed = query;
  } else {
    body = JSON.stringify(target.payload);
    signed = body;
  }
  const headers: Record<string, string> = {
    'user-agent': USER_AGENT,
    'webhook-id': target.msgId,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': signature(target.secret, target.msgId, now, signed),
  };
  if (body !== null) headers['content-type'] = 'application/json';
  return { method, url, headers, body };
}

export interface SenderOptions {
  allowedNetworks: readonly string[];
  timeoutMs?: number;
  /** sockets per host and agent */
  maxSocketsPerHost?: number;
}

/** Sends webhook requests through keep-alive agents guarded against our own networks. */
export class WebhookSender {
  readonly #http: http.Agent;
  readonly #https: https.Agent;
  readonly #timeoutMs: number;

  constructor(opts: SenderOptions) {
    const guard = {
      allowIPAddressList: [...opts.allowedNetworks],
      allowPrivateIPAddress: false,
      allowMetaIPAddress: false,
    };
    // as many idle sockets kept as may be busy: with fewer, a burst that finishes together closed
    // the extra connections and the next claim opened them again (connect + the filter's checks;
    // bench:webhooks at 64 per customer spent ~10 % of the worker there)
    const sockets = opts.maxSocketsPerHost ?? 16;
    const pool = { keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets, timeout: 60_000 };
    this.#http = new RequestFilteringHttpAgent({ ...pool, ...guard });
    this.#https = new RequestFilteringHttpsAgent({ ...pool, ...guard });
    this.#timeoutMs = opts.timeoutMs ?? TIMEOUT_MS;
  }

  close(): void {
    this.#http.destroy();
    this.#https.destroy();
  }

  /** One attempt; never throws. `now` is the attempt's time as the retry clock sees it. */
  send(target: WebhookTarget, now: Date): Promise<AttemptResult> {
    const prepared = prepareRequest(target, now);
    const started = performance.now();
    const headers = { ...prepared.headers };
    if (target.auth)
      headers.authorization =
        `Basic ` + `${Buffer.from(`${target.auth.username}:${target.auth.password}`).toString('base64')}`;
    if (prepared.body !== null) headers['content-length'] = String(Buffer.byteLength(prepared.body));
    const done = (r: Omit<AttemptResult, 'at' | 'durationMs'>): AttemptResult => ({
      at: now,
      durationMs: Math.round(performance.now() - started),
      ...r,
    });

    return new Promise<AttemptResult>((resolve) => {
      let settled = false;
      const finish = (r: AttemptResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(r);
      };
      const url = new URL(prepared.url);
      const lib = url.protocol === 'https:' ? https : http;
      const req = lib.request(
        url,
        { method: prepared.method, headers, agent: url.protocol === 'https:' ? this.#https : this.#http },
        (res) => {
          const kept: Buffer[] = [];
          let keptBytes = 0;
          let read = 0;
          res.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (keptBytes < BODY_KEEP_BYTES) {
              kept.push(chunk.subarray(0, BODY_KEEP_BYTES - keptBytes));
              keptBytes += Math.min(chunk.length, BODY_KEEP_BYTES - keptBytes);
            }
            if (read > BODY_READ_LIMIT) res.destroy();
          });
          const answered = () =>
            finish(
              done({
                statusCode: res.statusCode ?? null,
                error: null,
                body: Buffer.concat(kept).toString('utf8'),
                retryAfter: typeof res.headers['retry-after'] === 'string' ? res.headers['retry-after'] : undefined,
              }),
            );
          res.on('end', answered);
          res.on('close', answered);
          res.on('error', answered);
        },
      );
      const timer = setTimeout(() => {
        req.destroy();
        finish(done({ statusCode: null, error: `timed out after ${this.#timeoutMs / 1000} s`, body: null }));
      }, this.#timeoutMs);
      req.on('error', (err: NodeJS.ErrnoException) =>
        finish(done({ statusCode: null, error: err.code ? `${err.code}: ${err.message}` : err.message, body: null })),
      );
      req.end(prepared.body ?? undefined);
    });
  }
}

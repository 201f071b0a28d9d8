// Attachments given by URL (Resend's `path`), fetched once while a send is accepted, before its
// answer, under the outbound rules of webhooks (docs/webhooks.md, docs/integrating.md): the URL is
// checked when read (webhooks/url-guard.ts) and the address actually dialled by
// request-filtering-agent, both exempting only WEBHOOK_ALLOWED_NETWORKS; every redirect is checked
// again. An answer is read as a stream and cut off at the room its message has left (the limit an
// inline attachment has) and at what one request could carry inline, so nothing unbounded is held.
import http from 'node:http';
import https from 'node:https';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import type { AppContext } from '../core/context.ts';
import { DomainError } from '../core/errors.ts';
import type { StoredAttachment } from '../db/schema.ts';
import { webhookUrlProblem } from '../webhooks/url-guard.ts';

/** An attachment to fetch: its place among the message's attachments and what was given with it. */
export interface PathAttachment {
  index: number;
  url: string;
  filename?: string;
  content_type?: string;
  content_id?: string;
}

interface Fillable {
  html: string | null;
  text: string | null;
  attachments: StoredAttachment[];
  pathAttachments?: PathAttachment[];
}

const MAX_REDIRECTS = 5;
/** Fetches under way at once for one request (a batch may name many URLs). */
const CONCURRENCY = 4;
const USER_AGENT = 'Transact-Attachments/1.0';
const MIME_TYPE = /^[\w.+-]+\/[\w.+-]+$/;

/** Why a fetch was refused or failed: a sentence for the 422. */
class Refused extends Error {}

interface Fetcher {
  ctx: AppContext;
  agents: { http: http.Agent; https: https.Agent };
  /** Bytes the whole request may still fetch. */
  left: number;
  running: number;
  waiting: (() => void)[];
}

/**
 * Fetches every `pathAttachments` entry of the submissions and answers them with the bytes in
 * `attachments`, in the order the request gave them; a refused or failed fetch is a 422
 * (unprocessable) naming the attachment (`3.attachments.1.path` in a batch).
 */
export async function fetchAttachmentPaths<S extends Fillable>(
  ctx: AppContext,
  submissions: S[],
  opts: { batch: boolean; maxMessageBytes: number },
): Promise<S[]> {
  if (!submissions.some((s) => s.pathAttachments?.length)) return submissions;
  const guard = {
    allowIPAddressList: [...ctx.config.webhookAllowedNetworks],
    allowPrivateIPAddress: false,
    allowMetaIPAddress: false,
  };
  const fetcher: Fetcher = {
    ctx,
    agents: { http: new RequestFilteringHttpAgent(guard), https: new RequestFilteringHttpsAgent(guard) },
    left: Math.floor((ctx.config.sendBodyLimitBytes * 3) / 4),
    running: 0,
    waiting: [],
  };
  try {
    return await Promise.all(
      submissions.map((s, i) => fillOne(fetcher, s, opts.batch ? `${i}.` : '', opts.maxMessageBytes)),
    );
  } finally {
    fetcher.agents.http.destroy();
    fetcher.agents.https.destroy();
  }
}

async function fillOne<S extends Fillable>(f: Fetcher, s: S, prefix: string, maxMessageBytes: number): Promise<S> {
  if (!s.pathAttachments?.length) return s;
  const decoded = (a: StoredAttachment) => Buffer.byteLength(a.content, 'base64');
  let room =
    maxMessageBytes -
    Buffer.byteLength(s.html ?? '') -
    Buffer.byteLength(s.text ?? '') -
    s.attachments.reduce((n, a) => n + decoded(a), 0);
  const fetched = new Map<number, StoredAttachment>();
  // one after another within a message: each may use the room the ones before left
  for (const p of s.pathAttachments) {
    const path = `${prefix}attachments.${p.index}.path`;
    try {
      const file = await withSlot(f, () => fetchOne(f, p.url, room));
      room -= file.bytes.length;
      fetched.set(p.index, {
        filename: p.filename ?? file.filename,
        content: file.bytes.toString('base64'),
        content_type: p.content_type ?? file.contentType ?? 'application/octet-stream',
        ...(p.content_id && { content_id: p.content_id }),
      });
    } catch (err) {
      if (!(err instanceof Refused)) throw err;
      const message = `${p.url} could not be attached: ${err.message}`;
      throw new DomainError('unprocessable', `Invalid attachment: ${path}: ${message}`, {
        details: [{ path, message }],
      });
    }
  }
  const inline = [...s.attachments];
  const total = inline.length + fetched.size;
  const attachments = Array.from({ length: total }, (_, i) => fetched.get(i) ?? inline.shift()!);
  const { pathAttachments: _, ...rest } = s;
  return { ...rest, attachments } as S;
}

async function withSlot<T>(f: Fetcher, run: () => Promise<T>): Promise<T> {
  while (f.running >= CONCURRENCY) await new Promise<void>((resolve) => f.waiting.push(resolve));
  f.running++;
  try {
    return await run();
  } finally {
    f.running--;
    f.waiting.shift()?.();
  }
}

/** One URL, redirects followed (each checked again), within `room` bytes and the fetch timeout. */
async function fetchOne(
  f: Fetcher,
  raw: string,
  room: number,
): Promise<{ bytes: Buffer; contentType: string | null; filename: string }> {
  const { config, resolver } = f.ctx;
  const deadline = Date.now() + config.attachmentFetchTimeoutSeconds * 1000;
  let url = raw;
  for (let hops = 0; ; hops++) {
    const problem = await webhookUrlProblem(url, {
      allowed: config.webhookAllowedNetworks,
      resolver,
      subject: hops === 0 ? 'The URL' : `The URL it redirects to (${url})`,
    });
    if (problem) throw new Refused(problem);
    const res = await get(f, new URL(url), deadline);
    const status = res.statusCode ?? 0;
    if (status >= 300 && status < 400 && res.headers.location) {
      res.destroy();
      if (hops >= MAX_REDIRECTS) throw new Refused(`more than ${MAX_REDIRECTS} redirects`);
      url = new URL(res.headers.location, url).toString();
      continue;
    }
    if (status < 200 || status >= 300) {
      res.destroy();
      throw new Refused(`the server answered ${status}`);
    }
    const limit = Math.min(room, f.left);
    const bytes = await readBounded(res, limit, deadline, config.attachmentFetchTimeoutSeconds);
    f.left -= bytes.length;
    const type = String(res.headers['content-type'] ?? '')
      .split(';')[0]
      .trim()
      .toLowerCase();
    return { bytes, contentType: MIME_TYPE.test(type) ? type : null, filename: fileNameOf(new URL(url)) };
  }
}

/** The last segment of the URL's path as a plain file name, or `attachment`. */
function fileNameOf(url: URL): string {
  let last = url.pathname.split('/').pop() ?? '';
  try {
    last = decodeURIComponent(last);
  } catch {
    // a broken escape stays as it was
  }
  const name = last.replace(/[\u0000-\u001f\u007f/\\]/g, '').slice(0, 255);
  return name || 'attachment';
}

function get(f: Fetcher, url: URL, deadline: number): Promise<http.IncomingMessage> {
  const secure = url.protocol === 'https:';
  const lib = secure ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.get(url, {
      agent: secure ? f.agents.https : f.agents.http,
      headers: { 'user-agent': USER_AGENT, accept: '*/*' },
    });
    const timer = setTimeout(
      () => req.destroy(new Refused(`no answer within ${f.ctx.config.attachmentFetchTimeoutSeconds} s`)),
      Math.max(0, deadline - Date.now()),
    );
    req.on('response', (res) => {
      clearTimeout(timer);
      resolve(res);
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(err instanceof Refused ? err : new Refused(err.code ? `${err.code}: ${err.message}` : err.message));
    });
  });
}

/** The body, refused as soon as it passes `limit` bytes or the deadline (the connection is dropped). */
function readBounded(res: http.IncomingMessage, limit: number, deadline: number, seconds: number): Promise<Buffer> {
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    res.destroy();
    return Promise.reject(new Refused(tooLarge(declared, limit)));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const fail = (err: Refused) => {
      clearTimeout(timer);
      res.destroy();
      reject(err);
    };
    const timer = setTimeout(
      () => fail(new Refused(`not read whole within ${seconds} s`)),
      Math.max(0, deadline - Date.now()),
    );
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) fail(new Refused(tooLarge(size, limit)));
      else chunks.push(chunk);
    });
    res.on('end', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    res.on('error', (err) => fail(new Refused(err.message)));
  });
}

function tooLarge(size: number, limit: number): string {
  const bytes = (n: number) => n.toLocaleString('en-US');
  return `it is larger than the ${bytes(limit)} bytes the message has room for (${bytes(size)} or more)`;
}

// Mail in over HTTP: POST /v1/mail and /v1/mail/batch (our shape), POST /v1/emails and
// /v1/emails/batch (Resend's shape, so the official SDK works with RESEND_BASE_URL=<us>/v1).
// Authenticated by API key (Bearer, or Basic username:apiKey); a sending_access key only From its
// domain when it has one (docs/architecture.md §7 "API keys"). Answers only after the COMMIT.
import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { Hono } from 'hono';
import { z } from 'zod';
import type { AppContext } from '../core/context.ts';
import { type ApiKeyEnv, apiKeyAuth } from '../http/api-key.ts';
import { requireSendableFrom } from '../credentials/api-keys.service.ts';
import { resendError } from '../http/resend-errors.ts';
import * as contract from '../../contract/sending.ts';
import { contractRoutes } from '../http/contract-route.ts';
import { DomainError } from '../core/errors.ts';
import { reshapeErrors } from '../http/middleware.ts';
import { check } from '../core/check.ts';
import { parseJsonBody } from '../http/validate.ts';
import {
  type AcceptedRecipient,
  type Idempotency,
  IdempotencyReplay,
  type PreparedMessage,
  accept,
  prepare,
  storedAnswer,
} from './sending.service.ts';
import type { ErrorCode } from '../../contract/error-codes.ts';
import { MAX_BATCH } from '../../contract/values.ts';
import {
  MAX_MESSAGE_BYTES,
  SubmissionError,
  type Submission,
  fromMailRequest,
  fromResendRequest,
} from './mail.schema.ts';
import { fetchAttachmentPaths } from '../attachments/url-attachments.service.ts';
import { withTemplate } from '../templates/template-send.ts';

type SendEnv = ApiKeyEnv;

/**
 * Errors on /v1/emails carry Resend's `statusCode`, `name` and `message` beside our `error`, so
 * both kinds of client find what they look for (the /resend/* surface answers Resend's shape alone,
 * http/resend-errors.ts).
 */
const resendFieldsBeside = reshapeErrors<SendEnv>((err, { status, body }, c) => ({
  ...body,
  ...resendError(err, status, c),
}));

async function readJson(c: Context): Promise<{ text: string; value: unknown }> {
  const text = await c.req.text();
  return { text, value: parseJsonBody(text) };
}

function submissionOrThrow<T>(make: () => T, prefix = ''): T {
  try {
    return make();
  } catch (err) {
    if (err instanceof SubmissionError) {
      const path = prefix + err.path;
      throw new DomainError('validation_failed', `Invalid request: ${path}: ${err.message}`, {
        details: [{ path, message: err.message }],
      });
    }
    throw err;
  }
}

/** A refused From domain, with the path of the message it came from (`3.from` in a batch). */
function atIndex(err: unknown, prefix: string): unknown {
  if (!(err instanceof DomainError) || err.code !== 'domain_not_verified') return err;
  const path = `${prefix}from`;
  return new DomainError(err.code, prefix ? `Message ${prefix.slice(0, -1)}: ${err.message}` : err.message, {
    details: [{ path, message: err.message }],
  });
}

/** Checks one message of a batch; a problem names its index (`3.subject`) when `i` is given. */
function submissionOf<S extends z.ZodType>(
  item: unknown,
  schema: S,
  convert: (body: z.infer<S>) => Submission,
  i?: number,
): Submission {
  const parsed = schema.safeParse(item);
  if (!parsed.success) {
    const details = parsed.error.issues.map((issue) => ({
      path: (i === undefined ? issue.path : [i, ...issue.path]).join('.'),
      message: issue.message,
    }));
    throw new DomainError(
      'validation_failed',
      `Invalid request: ${details.map((d) => `${d.path}: ${d.message}`).join('; ')}`,
      { details },
    );
  }
  return submissionOrThrow(() => convert(parsed.data), i === undefined ? '' : `${i}.`);
}

/** Checks every message of a batch; the first problem is reported with its index (`3.subject`). */
function eachSubmission<S extends z.ZodType>(
  list: unknown[],
  schema: S,
  convert: (body: z.infer<S>) => Submission,
): Submission[] {
  return list.map((item, i) => submissionOf(item, schema, convert, i));
}

/**
 * What makes one message of a permissive batch refused on its own (reported at its index) rather
 * than the whole request: its content, its From, its template.
 */
const ITEM_REFUSALS = new Set<ErrorCode>([
  'validation_failed',
  'bad_request',
  'domain_not_verified',
  'missing_variables',
  'unprocessable',
  'not_found',
  'forbidden',
]);

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,256}$/;

/**
 * Reads the Idempotency-Key: a key seen in the last 24 h with the same request answers its first
 * response again (nothing new queued); with another request it is a 409.
 */
async function idempotencyOf(
  ctx: AppContext,
  c: Context<SendEnv>,
  bodyText: string,
  mode = '',
): Promise<Idempotency | Response | undefined> {
  const key = c.req.header('idempotency-key');
  if (key === undefined) return undefined;
  if (!IDEMPOTENCY_KEY.test(key))
    throw new DomainError('validation_failed', 'Idempotency-Key must be 1 to 256 printable characters');
  // a permissive batch is another request than a strict one with the same body
  const requestLine = `${c.req.method} ${c.req.path}${mode && ` ${mode}`}`;
  const requestHash = createHash('sha256').update(`${requestLine}\n${bodyText}`).digest('hex');
  const existing = await storedAnswer(ctx, c.get('customerId'), key);
  if (existing) {
    if (existing.request_hash !== requestHash)
      throw new DomainError('conflict', 'This Idempotency-Key was already used with a different request');
    return c.json(existing.response as object, existing.status as 200);
  }
  return { key, requestHash };
}

export function mailRoutes(ctx: AppContext): Hono<SendEnv> {
  const app = new Hono<SendEnv>();
  const serve = contractRoutes(app, '');
  const auth = [apiKeyAuth(ctx, { sends: true })];

  /** Validates, prepares and accepts; `render` shapes the answer from the accepted recipients. */
  async function send(
    c: Context<SendEnv>,
    bodyText: string,
    submissions: Submission[],
    render: (accepted: AcceptedRecipient[][]) => { status: 200 | 202; body: object },
    batch = false,
  ): Promise<Response> {
    for (const s of submissions) requireSendableFrom(c.get('keyGrant'), s.from.email);
    const idempotency = await idempotencyOf(ctx, c, bodyText);
    if (idempotency instanceof Response) return idempotency;
    const customerId = c.get('customerId');
    // attachments by URL are fetched now, after the idempotency check: a replay fetches nothing
    const filled = await fetchAttachmentPaths(ctx, submissions, { batch, maxMessageBytes: MAX_MESSAGE_BYTES });
    const prepared = await Promise.all(
      filled.map((s, i) =>
        prepare(ctx, customerId, s).catch((err) => Promise.reject(atIndex(err, batch ? `${i}.` : ''))),
      ),
    );
    return acceptAndAnswer(c, prepared, idempotency, render);
  }

  /** Accepts the prepared messages (storing the answer with its Idempotency-Key) and answers. */
  async function acceptAndAnswer(
    c: Context<SendEnv>,
    prepared: PreparedMessage[],
    idempotency: Idempotency | undefined,
    render: (accepted: AcceptedRecipient[][]) => { status: 200 | 202; body: object },
  ): Promise<Response> {
    try {
      const accepted = await accept(ctx, c.get('customerId'), prepared, idempotency && { ...idempotency, render });
      const { status, body } = render(accepted);
      return c.json(body, status);
    } catch (err) {
      if (err instanceof IdempotencyReplay) return c.json(err.response as object, err.status as 200);
      throw err;
    }
  }

  /**
   * Resend's permissive batch (`x-batch-validation: permissive`): each message is checked on its
   * own, the valid ones are accepted together, the others answered as `errors` with their index.
   * The answer, errors included, is what an Idempotency-Key replays, even when nothing was sent.
   */
  async function sendPermissive(c: Context<SendEnv>, bodyText: string, list: unknown[]): Promise<Response> {
    const customerId = c.get('customerId');
    const idempotency = await idempotencyOf(ctx, c, bodyText, 'permissive');
    if (idempotency instanceof Response) return idempotency;
    const outcomes = await Promise.all(
      list.map(async (item, index) => {
        try {
          const filled = await withTemplate(ctx, customerId, item, 'resend');
          const submission = submissionOf(filled, contract.resendRequest, fromResendRequest);
          requireSendableFrom(c.get('keyGrant'), submission.from.email);
          return { prepared: await prepare(ctx, customerId, submission) };
        } catch (err) {
          if (!(err instanceof DomainError) || !ITEM_REFUSALS.has(err.code)) throw err;
          return { error: { index, message: err.message } };
        }
      }),
    );
    const prepared = outcomes.flatMap((o) => o.prepared ?? []);
    const errors = outcomes.flatMap((o) => o.error ?? []);
    const render = (accepted: AcceptedRecipient[][]) => ({
      status: 200 as const,
      body: { data: accepted.map((r) => ({ id: r[0].trans_uuid })), errors },
    });
    if (prepared.length === 0 && !idempotency) return c.json(render([]).body, 200);
    return acceptAndAnswer(c, prepared, idempotency, render);
  }

  /** A batch: each message filled from its template and checked on its own (errors name its index), sent together. */
  async function sendBatch(
    c: Context<SendEnv>,
    bodyText: string,
    list: unknown[],
    shape: 'mail' | 'resend',
    render: (accepted: AcceptedRecipient[][]) => { status: 200 | 202; body: object },
  ): Promise<Response> {
    const items = await Promise.all(
      list.map((item, i) => withTemplate(ctx, c.get('customerId'), item, shape, `${i}.`)),
    );
    const submissions =
      shape === 'mail'
        ? eachSubmission(items, contract.mailRequest, fromMailRequest)
        : eachSubmission(items, contract.resendRequest, fromResendRequest);
    return send(c, bodyText, submissions, render, true);
  }

  const ourAnswer = (accepted: AcceptedRecipient[][]) => ({
    status: 202 as const,
    body: { data: accepted[0].map(({ trans_uuid, to, status }) => ({ trans_uuid, to, status })) },
  });

  // each handler reads its body itself: a template send is filled from its template before the check
  serve(contract.sendMail, auth, async (c) => {
    const { text, value } = await readJson(c);
    const body = check(contract.mailRequest, await withTemplate(ctx, c.get('customerId'), value, 'mail'));
    return send(c, text, [submissionOrThrow(() => fromMailRequest(body))], ourAnswer);
  });

  serve(contract.sendMailBatch, auth, async (c) => {
    const { text, value } = await readJson(c);
    const list = check(
      z.union([z.array(z.unknown()), z.object({ messages: z.array(z.unknown()) }).transform((o) => o.messages)]),
      value,
    );
    if (list.length === 0 || list.length > MAX_BATCH)
      throw new DomainError(
        'validation_failed',
        `A batch holds 1 to ${MAX_BATCH} messages; this one has ${list.length}`,
      );
    return sendBatch(c, text, list, 'mail', (accepted) => ({
      status: 202,
      body: {
        data: accepted.map((recipients) =>
          recipients.map(({ trans_uuid, to, status }) => ({ trans_uuid, to, status })),
        ),
      },
    }));
  });

  app.use('/v1/emails', resendFieldsBeside);
  app.use('/v1/emails/batch', resendFieldsBeside);

  // Resend's send calls, at /resend (Resend's shape alone) and at /v1 (kept for earlier clients)
  for (const op of [contract.sendEmail, contract.resendSendEmail])
    serve(op, auth, async (c) => {
      const { text, value } = await readJson(c);
      const body = check(contract.resendRequest, await withTemplate(ctx, c.get('customerId'), value, 'resend'));
      return send(c, text, [submissionOrThrow(() => fromResendRequest(body))], (accepted) => ({
        status: 200,
        body: { id: accepted[0][0].trans_uuid },
      }));
    });
  for (const op of [contract.sendEmailBatch, contract.resendSendBatch])
    serve(op, auth, async (c) => {
      const { text, value } = await readJson(c);
      const list = check(z.array(z.unknown()).min(1).max(100), value);
      const mode = check(contract.batchValidation, { 'x-batch-validation': c.req.header('x-batch-validation') });
      if (mode['x-batch-validation'] === 'permissive') return sendPermissive(c, text, list);
      return sendBatch(c, text, list, 'resend', (accepted) => ({
        status: 200,
        body: { data: accepted.map((r) => ({ id: r[0].trans_uuid })) },
      }));
    });

  return app;
}

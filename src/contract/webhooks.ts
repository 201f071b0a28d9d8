// The webhook and suppression calls of the contract: the account's one webhook, its signing
// secret and test event, the Webhook Logs with More info and Replay (docs/console.md §7, docs/console-reports.md §7),
// and the Suppression List.
import { z } from '@hono/zod-openapi';
import { messageAnswer, numericId, operationsOf, pageOf } from './common.ts';
import {
  FIELD_SETS,
  MAX_EMAILS_PER_REQUEST,
  RECEIVED_CONTENT,
  RECEIVED_INLINE_LIMIT_BYTES,
  RESEND_WEBHOOK_EVENTS,
  SUPPRESSION_ORIGINS,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_VERBS,
} from './values.ts';

/** A webhook's event types: ours, or Resend's names for a `resend` webhook (its field set). */
const EVENT_NAMES = [...WEBHOOK_EVENT_TYPES, ...RESEND_WEBHOOK_EVENTS] as const;
/** A webhook's uuid in a console call; anything else answers 404 like an unknown one. */
const webhookUuid = z.string().max(100);

/** Ours: what `email.received` carries to the webhook (docs/receiving.md "To a webhook"). */
export const receivedContentFields = {
  received_content: z.enum(RECEIVED_CONTENT).openapi({
    description:
      'What `email.received` carries: `metadata` (the message’s fields, as Resend sends them; the default) or ' +
      '`full` (text, HTML, headers, attachments and the raw message too). `full` needs a `resend` webhook whose ' +
      'method carries a body (POST, PUT or PATCH).',
  }),
  received_inline_max_bytes: z
    .number()
    .int()
    .min(0)
    .max(RECEIVED_INLINE_LIMIT_BYTES)
    .openapi({
      description:
        'With `full`: the attachments come inline in base64 while they total at most this many bytes (262144, ' +
        '256 KiB, unless set; at most 1 MiB), else each as a signed download link.',
    }),
};

// The webhook object of docs/console.md §3 as the modal sends it back (created_timestamp, secret and
// other read-only fields are ignored). An empty authentication type is null (§5). Ours: `id` names the
// webhook to change, `add` adds another; with neither, the account's first Settings webhook is saved.
export const webhookInput = z.object({
  id: webhookUuid.nullish(),
  add: z.boolean().optional(),
  url: z.string(),
  verb: z.enum(WEBHOOK_VERBS),
  status: z.enum(['enabled', 'disabled']),
  auth_type: z.preprocess((v) => (v === '' ? null : v), z.enum(['basic']).nullable()).optional(),
  auth_details: z
    .object({ username: z.string().max(200), password: z.string().max(200) })
    .nullable()
    .optional(),
  event_types: z.array(z.enum(EVENT_NAMES)).max(EVENT_NAMES.length),
  field_set: z.enum(FIELD_SETS),
  // ours; a webhook saved without them keeps what it had (a new one: metadata, 256 KiB)
  received_content: receivedContentFields.received_content.optional(),
  received_inline_max_bytes: receivedContentFields.received_inline_max_bytes.optional(),
});

/** The Webhook Logs' page and sort. */
export const logSearch = z.object({
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  // the Date column's sort (docs/console-reports.md §2): newest first unless 'asc'
  order_by: z.enum(['asc', 'desc']).default('desc'),
  // ours: one webhook's requests (its uuid); all of the account's when absent
  webhook: webhookUuid.nullish(),
});

const webhook = z.object({
  id: z.string().openapi({ description: 'The webhook’s uuid (its id on /resend/webhooks too).' }),
  url: z.string(),
  verb: z.enum(WEBHOOK_VERBS),
  status: z.enum(['enabled', 'disabled']),
  auth_type: z.union([z.literal('basic'), z.null()]),
  auth_details: z.object({ username: z.string(), password: z.string() }).nullable(),
  event_types: z.array(z.enum(EVENT_NAMES)),
  field_set: z.enum(FIELD_SETS),
  created_timestamp: z.string(),
  secret: z.string().nullable().openapi({ description: 'The Standard Webhooks signing secret, `whsec_…`.' }),
  disabled_reason: z.string().nullable(),
  ...receivedContentFields,
});

export const logEntry = z.object({
  id: z.number().int(),
  date: z.number().int(),
  url: z.string(),
  status: z.string().openapi({ description: 'success, pending (queued, replayed or retrying) or failed' }),
  progress: z.enum(['queued', 'replayed', 'retrying', 'success', 'failed']).openapi({
    description:
      '`queued` never tried yet, `replayed` queued again by Replay and not tried since, `retrying` the last try ' +
      'failed and another is due, `success` or `failed`.',
  }),
  verb: z.string(),
  field_set: z.string(),
  content_type: z.string(),
  payload: z.record(z.string(), z.unknown()).nullable(),
  event_type: z.string(),
  webhook_id: z.string(),
  webhook: z.string().nullable().openapi({ description: 'The uuid of the webhook it was sent to; null once deleted.' }),
  attempts: z.number().int(),
  last_status_code: z.number().int().nullable(),
  next_attempt: z.number().int().nullable(),
});

const logParams = z.object({ id: numericId });
const webhookOperation = operationsOf({ tag: 'Webhooks', access: 'session' });
const suppressionOperation = operationsOf({ tag: 'Suppression', access: 'session' });

const whichWebhook = z.object({
  id: webhookUuid.optional().openapi({ description: 'The webhook’s uuid; the account’s first webhook if not given.' }),
});

export const getWebhooks = webhookOperation('GET /v1/webhooks', {
  summary: 'The account’s webhooks',
  description:
    'Every webhook of the account, oldest first, with its URL, method, events, field set, basic-auth details and ' +
    'signing secret: those saved on Settings and those made with POST /resend/webhooks.',
  success: [{ status: 200, description: 'The webhooks, if any.', schema: z.object({ data: z.array(webhook) }) }],
  errors: ['forbidden'],
});

export const saveWebhook = webhookOperation('POST /v1/webhooks', {
  summary: 'Save a webhook',
  description:
    'Changes the webhook `id` names, adds one with `add: true`, or else creates or replaces the account’s first ' +
    'Settings webhook. The URL must be http(s) and reach a public address, and no other webhook of the account ' +
    'may have the same URL, field set and events (409: each event would be posted twice); `event_types` are ' +
    'Resend’s names ' +
    '(`email.delivered`…) for the `resend` field set, ours otherwise; other fields of the object as GET answers it ' +
    'are ignored.',
  body: webhookInput,
  bodyExample: {
    id: '4dd369bc-aa82-4ff3-97de-514ae3000ee0',
    url: 'https://hooks.example.com/transact',
    verb: 'post',
    status: 'enabled',
    auth_type: null,
    event_types: ['sent', 'bounce'],
    field_set: 'standard',
  },
  checkedByHandler: true,
  success: [{ status: 200, description: 'Saved.', schema: messageAnswer.extend({ data: webhook }) }],
  errors: ['webhook_url_not_allowed', 'forbidden', 'not_found', 'conflict'],
});

export const deleteWebhook = webhookOperation('DELETE /v1/webhooks/{id}', {
  summary: 'Delete a webhook',
  description:
    'Deletes the webhook: no event is sent to it from now on. Its logged requests stay in Webhook Logs. A malformed, ' +
    'unknown or another account’s id answers 404.',
  params: z.object({ id: webhookUuid.openapi({ description: 'The webhook’s uuid.' }) }),
  success: [{ status: 200, description: 'Deleted.', schema: messageAnswer }],
  errors: ['forbidden', 'not_found'],
});

export const rotateSecret = webhookOperation('POST /v1/webhooks/secret', {
  summary: 'Rotate the signing secret',
  description: 'Makes a new signing secret for the webhook; its requests from now on are signed with it.',
  query: whichWebhook,
  success: [{ status: 200, description: 'The new secret.', schema: z.object({ secret: z.string() }) }],
  errors: ['forbidden', 'not_found'],
});

export const testWebhook = webhookOperation('POST /v1/webhooks/test', {
  summary: 'Send a test event',
  description:
    'Sends an `email.test` event to the webhook now (logged, never retried) and answers what the endpoint replied.',
  query: whichWebhook,
  success: [
    {
      status: 200,
      description: 'The endpoint’s answer.',
      schema: z.object({
        id: z.number().int(),
        status_code: z.number().int().nullable(),
        error: z.string().nullable(),
        duration_ms: z.number(),
      }),
    },
  ],
  errors: ['forbidden', 'not_found', 'conflict'],
});

export const searchWebhookLogs = webhookOperation('POST /v1/webhook-logs', {
  summary: 'Webhook Logs',
  description:
    'One page (10 rows) of the requests made to the account’s webhooks (or to the one `webhook` names), newest ' +
    'first unless order_by is asc.',
  body: logSearch,
  bodyExample: { page: 1, order_by: 'desc', webhook: '4dd369bc-aa82-4ff3-97de-514ae3000ee0' },
  success: [
    {
      status: 200,
      description: 'One page of requests.',
      schema: pageOf(logEntry),
    },
  ],
  errors: ['not_found'],
});

export const getWebhookLog = webhookOperation('GET /v1/webhook-logs/{id}', {
  summary: 'One webhook request in full',
  description:
    'The request as sent (secrets hidden) and every attempt with the endpoint’s status and the start of its answer.',
  params: logParams,
  success: [
    {
      status: 200,
      description: 'The request and its attempts.',
      schema: z.object({
        log: logEntry,
        request: z.object({
          method: z.string(),
          url: z.string(),
          headers: z.record(z.string(), z.string()),
          payload: z.record(z.string(), z.unknown()).nullable(),
        }),
        attempts: z.array(
          z.object({
            at: z.number().int(),
            duration_ms: z.number(),
            status_code: z.number().int().nullable(),
            error: z.string().nullable(),
            response_body: z.string().nullable(),
            next_retry_at: z.number().int().nullable(),
          }),
        ),
      }),
    },
  ],
  errors: ['not_found'],
});

export const replayWebhookLog = webhookOperation('POST /v1/webhook-logs/{id}/replay', {
  summary: 'Send a webhook request again',
  description: 'Queues the same payload to the webhook’s current address.',
  params: logParams,
  success: [{ status: 202, description: 'Queued.', schema: messageAnswer, example: { message: 'Queued again.' } }],
  errors: ['forbidden', 'not_found', 'conflict'],
});

export const addSuppressionsBody = z.strictObject({
  emails: z.array(z.string(), { error: 'emails must be a list of email addresses' }).max(MAX_EMAILS_PER_REQUEST, {
    error: `Add at most ${MAX_EMAILS_PER_REQUEST} email addresses at a time`,
  }),
});

// docs/console-reports.md §2: filter buttons All, User, Bounce, Unsubscribe (and Complaint); '' (or null) also
// means all
export const searchSuppressionsBody = z.strictObject({
  page: z.number().int().min(1).max(1_000_000).default(1),
  email: z.string().max(320).nullish(),
  suppressed_origin: z.enum(['', 'all', ...SUPPRESSION_ORIGINS]).nullish(),
});

export const addSuppressions = suppressionOperation('POST /v1/suppression', {
  summary: 'Add addresses to the suppression list',
  description:
    `Puts up to ${MAX_EMAILS_PER_REQUEST} addresses on the list; mail to them is not sent. Lines that are ` +
    `not addresses are reported, not refused.`,
  body: addSuppressionsBody,
  bodyExample: { emails: ['old@example.com', 'gone@example.org'] },
  success: [
    {
      status: 200,
      description: 'How many were added, how many were there already, and the lines refused.',
      schema: z.object({
        added: z.number().int(),
        already: z.number().int(),
        invalid: z.array(z.object({ line: z.number().int(), value: z.string(), message: z.string() })),
      }),
    },
  ],
  errors: ['forbidden'],
});

export const searchSuppressions = suppressionOperation('POST /v1/suppression/search', {
  summary: 'Search the suppression list',
  description:
    'One page of suppressed addresses, by the start of an address and by origin (user, bounce, unsubscribe, ' +
    'complaint).',
  body: searchSuppressionsBody,
  bodyExample: { page: 1, email: 'old@', suppressed_origin: 'bounce' },
  success: [
    {
      status: 200,
      description: 'One page of entries.',
      schema: pageOf(
        z.object({
          email: z.string(),
          origin: z.enum(SUPPRESSION_ORIGINS),
          suppressed_timestamp: z.string(),
        }),
      ),
    },
  ],
  errors: ['forbidden'],
});

export const deleteSuppression = suppressionOperation('DELETE /v1/suppression/{email}', {
  honoPath: '/v1/suppression/:email{.+}',
  summary: 'Remove an address from the suppression list',
  description: 'Mail to the address is sent again. The address is URL-encoded in the path.',
  params: z.object({ email: z.string().max(320).openapi({ example: 'old@example.com' }) }),
  success: [
    {
      status: 200,
      description: 'Removed.',
      schema: messageAnswer,
      example: { message: 'Suppression Deleted Successfully' },
    },
  ],
  errors: ['validation_failed', 'forbidden', 'not_found'],
});

export const webhookOperations = [
  getWebhooks,
  saveWebhook,
  deleteWebhook,
  rotateSecret,
  testWebhook,
  searchWebhookLogs,
  getWebhookLog,
  replayWebhookLog,
  addSuppressions,
  searchSuppressions,
  deleteSuppression,
];

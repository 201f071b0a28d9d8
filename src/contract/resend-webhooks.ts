// Webhooks on the Resend-compatible surface (/resend/webhooks): Resend's calls and shapes, so the
// `resend` SDK's `webhooks.*` and `webhooks.events.*` work unchanged. The same webhooks as Settings
// lists (docs/webhooks.md "Several webhooks"), the same outbox and worker, the same logs.
import { z } from '@hono/zod-openapi';
import { resendList, resendOperation, resendPageQuery, uuidId } from './common.ts';
import { RESEND_WEBHOOK_EVENTS } from './values.ts';
import { receivedContentFields } from './webhooks.ts';

const WEBHOOK_ID = '4dd369bc-aa82-4ff3-97de-514ae3000ee0';
const EVENT_ID = '1042';

const webhookId = z.object({
  id: uuidId('The webhook’s id; anything else answers 404.', WEBHOOK_ID),
});
const eventPath = z.object({
  webhookId: uuidId('The webhook’s id; anything else answers 404.', WEBHOOK_ID),
  eventId: z
    .string()
    .regex(/^\d{1,15}$/, 'must be a numeric id')
    .openapi({ description: 'The event’s id (digits, as a string); anything else answers 404.', example: EVENT_ID }),
});
const eventsPath = eventPath.pick({ webhookId: true });

const eventName = z.enum(RESEND_WEBHOOK_EVENTS);
const events = z
  .array(eventName)
  .min(1, 'name at least one event')
  .max(RESEND_WEBHOOK_EVENTS.length * 2)
  .openapi({ description: 'The events it receives, by Resend’s names (`email.delivered`…).' });
const endpoint = z
  .string()
  .max(2048)
  .openapi({ description: 'Where the events are POSTed: http(s), a public address (docs/webhooks.md).' });
const status = z.enum(['enabled', 'disabled']).openapi({ description: 'A disabled webhook is sent nothing.' });
const createdAt = z.string().openapi({ description: 'When it was made, ISO 8601.' });

const listed = {
  id: z.string().openapi({ description: 'The webhook’s id (a uuid).' }),
  endpoint: z.string(),
  created_at: createdAt,
  status,
  events: z
    .array(eventName)
    .nullable()
    .openapi({
      description:
        'Its events by Resend’s names; null for a webhook saved on Settings with Transact’s own payloads (`standard` ' +
        'or `legacy`), whose events are Transact’s (GET /v1/webhooks).',
    }),
};
const listedWebhook = z.object(listed);
const webhook = z.object({
  object: z.literal('webhook'),
  ...listed,
  signing_secret: z.string().openapi({ description: 'The Standard Webhooks signing secret, `whsec_…`.' }),
  // ours (docs/receiving.md "To a webhook")
  ...receivedContentFields,
});
/** Ours beyond Resend's body: what `email.received` carries (the SDK passes the fields through). */
const receivedContentOptions = {
  received_content: receivedContentFields.received_content.optional(),
  received_inline_max_bytes: receivedContentFields.received_inline_max_bytes.optional(),
};
export type ResendWebhook = z.infer<typeof webhook>;
export type ResendListedWebhook = z.infer<typeof listedWebhook>;

const listedExample: ResendListedWebhook = {
  id: WEBHOOK_ID,
  endpoint: 'https://hooks.example.com/resend',
  created_at: '2026-11-27T09:30:00.000Z',
  status: 'enabled',
  events: ['email.sent', 'email.delivered', 'email.bounced'],
};
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const example: ResendWebhook = {
  object: 'webhook',
  ...listedExample,
  signing_secret: SECRET,
  received_content: 'metadata',
  received_inline_max_bytes: 262_144,
};

const ref = z.object({ object: z.literal('webhook'), id: z.string() });

export const resendCreateWebhook = resendOperation('POST /resend/webhooks', {
  summary: 'Create a webhook',
  description:
    'Adds a webhook beside the account’s others: every event named in `events` is POSTed to `endpoint` with ' +
    'Resend’s payload (`{ type, created_at, data }`), signed per Standard Webhooks with its own `signing_secret` ' +
    '(`resend.webhooks.verify` accepts it). An address that is not http(s) or reaches a private or loopback ' +
    'network is refused (`validation_error`, 422). Ours beyond Resend’s body: `received_content: "full"` asks ' +
    'for the whole message in `email.received` (docs/receiving.md).',
  body: z.strictObject({ endpoint, events, ...receivedContentOptions }),
  bodyExample: {
    endpoint: 'https://hooks.example.com/resend',
    events: ['email.sent', 'email.delivered', 'email.received'],
    received_content: 'full',
    received_inline_max_bytes: 262_144,
  },
  sdkCall: "resend.webhooks.create({ endpoint: 'https://hooks.example.com/resend', events: ['email.delivered'] })",
  success: [
    {
      status: 201,
      description: 'Created.',
      schema: ref.extend({ signing_secret: z.string() }),
      example: { object: 'webhook', id: WEBHOOK_ID, signing_secret: SECRET },
    },
  ],
  errors: ['unprocessable'],
});

export const resendListWebhooks = resendOperation('GET /resend/webhooks', {
  summary: 'List webhooks',
  description:
    'The account’s webhooks, newest first, in cursor pages: those made here and those saved on Settings. Pass the ' +
    'last `id` as `after` for the next page, the first as `before` for the previous.',
  query: resendPageQuery('webhook'),
  sdkCall: 'resend.webhooks.list({ limit: 20 })',
  success: [resendList('One page.', listedWebhook, [listedExample])],
  errors: ['not_found'],
});

export const resendGetWebhook = resendOperation('GET /resend/webhooks/{id}', {
  summary: 'Read a webhook',
  description: 'One webhook of the account with its signing secret.',
  params: webhookId,
  sdkCall: `resend.webhooks.get('${WEBHOOK_ID}')`,
  success: [{ status: 200, description: 'The webhook.', schema: webhook, example }],
  errors: ['not_found'],
});

export const resendUpdateWebhook = resendOperation('PATCH /resend/webhooks/{id}', {
  summary: 'Change a webhook',
  description:
    'Changes what is given of `endpoint` (refused as at creation), `events` and `status`. `events` cannot be ' +
    'given for a webhook with Transact’s own payloads (saved on Settings; 422): change those on Settings.',
  params: webhookId,
  body: z.strictObject({
    endpoint: endpoint.optional(),
    events: events.optional(),
    status: status.optional(),
    ...receivedContentOptions,
  }),
  bodyExample: {
    endpoint: 'https://hooks.example.com/resend',
    events: ['email.delivered', 'email.bounced'],
    status: 'enabled',
  },
  sdkCall: `resend.webhooks.update('${WEBHOOK_ID}', { status: 'disabled' })`,
  success: [{ status: 200, description: 'Changed.', schema: ref, example: { object: 'webhook', id: WEBHOOK_ID } }],
  errors: ['not_found', 'unprocessable'],
});

export const resendRemoveWebhook = resendOperation('DELETE /resend/webhooks/{id}', {
  summary: 'Delete a webhook',
  description: 'It is sent nothing more; its logged events stay on Webhook Logs.',
  params: webhookId,
  sdkCall: `resend.webhooks.remove('${WEBHOOK_ID}')`,
  success: [
    {
      status: 200,
      description: 'Deleted.',
      schema: ref.extend({ deleted: z.literal(true) }),
      example: { object: 'webhook', id: WEBHOOK_ID, deleted: true },
    },
  ],
  errors: ['not_found'],
});

export const resendRotateWebhookSecret = resendOperation('POST /resend/webhooks/{id}/signing-secret/rotate', {
  summary: 'Rotate a webhook’s signing secret',
  description: 'A new secret at once: every request from now on, retries included, is signed with it.',
  params: webhookId,
  sdkCall: `resend.webhooks.rotateSigningSecret('${WEBHOOK_ID}')`,
  success: [
    {
      status: 200,
      description: 'The new secret.',
      schema: ref.extend({ signing_secret: z.string() }),
      example: { object: 'webhook', id: WEBHOOK_ID, signing_secret: SECRET },
    },
  ],
  errors: ['not_found'],
});

const eventStatus = z.enum(['success', 'pending', 'failed', 'attempting']).openapi({
  description:
    '`pending`: queued, not tried yet (or queued again by replay); `attempting`: a try failed and another is due ' +
    '(`next_attempt_at`); `success`: a 2xx answer; `failed`: given up.',
});
const listedEvent = z.object({
  id: z.string().openapi({ description: 'The event’s id (digits, as a string).' }),
  type: z.string().openapi({ description: 'Resend’s name (`email.delivered`…); `email.test` for a test event.' }),
  created_at: z.string(),
  status: eventStatus,
});
const eventExample = { id: EVENT_ID, type: 'email.delivered', created_at: '2026-11-27T09:31:02.000Z' };

/** Resend's cursor pages of a webhook's events and of an event's attempts: `limit` and `after`. */
const afterQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20).openapi({ description: '1 to 100; 20 if not given.' }),
  after: z
    .string()
    .regex(/^\d{1,15}$/, 'must be an event id')
    .optional()
    .openapi({ description: 'The page after this event: its id.' }),
});

export const resendListWebhookEvents = resendOperation('GET /resend/webhooks/{webhookId}/events', {
  summary: 'List a webhook’s events',
  description: 'The events sent (or to be sent) to the webhook, newest first, in cursor pages.',
  params: eventsPath,
  query: afterQuery,
  sdkCall: `resend.webhooks.events.list({ webhookId: '${WEBHOOK_ID}' })`,
  success: [resendList('One page.', listedEvent, [{ ...eventExample, status: 'success' }])],
  errors: ['not_found'],
});

export const resendGetWebhookEvent = resendOperation('GET /resend/webhooks/{webhookId}/events/{eventId}', {
  summary: 'Read a webhook event',
  description: 'One event of the webhook with the payload sent; `payload` is null until its first try builds it.',
  params: eventPath,
  sdkCall: `resend.webhooks.events.get({ webhookId: '${WEBHOOK_ID}', eventId: '${EVENT_ID}' })`,
  success: [
    {
      status: 200,
      description: 'The event.',
      schema: listedEvent.extend({
        object: z.literal('webhook_event'),
        next_attempt_at: z.string().nullable().openapi({ description: 'When it is tried next, while pending.' }),
        payload: z.record(z.string(), z.unknown()).nullable(),
      }),
      example: {
        object: 'webhook_event',
        ...eventExample,
        status: 'success',
        next_attempt_at: null,
        payload: { type: 'email.delivered', created_at: eventExample.created_at, data: { email_id: '…' } },
      },
    },
  ],
  errors: ['not_found'],
});

export const resendReplayWebhookEvent = resendOperation('POST /resend/webhooks/{webhookId}/events/{eventId}/replay', {
  summary: 'Send a webhook event again',
  description: 'Queues the event again now with the same payload and `webhook-id`; the retry schedule starts over.',
  params: eventPath,
  sdkCall: `resend.webhooks.events.replay({ webhookId: '${WEBHOOK_ID}', eventId: '${EVENT_ID}' })`,
  success: [
    {
      status: 200,
      description: 'Queued again.',
      schema: z.object({ object: z.literal('webhook_event'), id: z.string() }),
      example: { object: 'webhook_event', id: EVENT_ID },
    },
  ],
  errors: ['not_found'],
});

export const resendListWebhookEventAttempts = resendOperation(
  'GET /resend/webhooks/{webhookId}/events/{eventId}/attempts',
  {
    summary: 'List an event’s attempts',
    description:
      'Every try of the event, oldest first, in cursor pages: the status code (null when no answer came) and the ' +
      'answer’s first 1 KB, or the network error.',
    params: eventPath,
    query: afterQuery,
    sdkCall: `resend.webhooks.events.attempts.list({ webhookId: '${WEBHOOK_ID}', eventId: '${EVENT_ID}' })`,
    success: [
      resendList(
        'One page.',
        z.object({
          id: z.string(),
          http_status_code: z.number().int().nullable(),
          response: z.string(),
          sent_at: z.string(),
        }),
        [{ id: '7', http_status_code: 200, response: 'ok', sent_at: '2026-11-27T09:31:02.000Z' }],
      ),
    ],
    errors: ['not_found'],
  },
);

export const resendWebhookOperations = [
  resendCreateWebhook,
  resendListWebhooks,
  resendGetWebhook,
  resendUpdateWebhook,
  resendRemoveWebhook,
  resendRotateWebhookSecret,
  resendListWebhookEvents,
  resendGetWebhookEvent,
  resendReplayWebhookEvent,
  resendListWebhookEventAttempts,
];

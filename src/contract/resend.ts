// The Resend-compatible surface (/resend/*): Resend's calls in Resend's shapes, refusals as
// `{ statusCode, name, message }`, so the official `resend` SDK works unchanged with
// RESEND_BASE_URL set to this service's /resend (docs/integrating.md).
import { z } from '@hono/zod-openapi';
import { resendList, resendOperation, resendPageQuery, resendRef, uuidId } from './common.ts';
import { resendSendBatch, resendSendEmail } from './sending.ts';

/** Resend's names for what last happened to a message (its `last_event`). */
export const RESEND_LAST_EVENTS = [
  'scheduled',
  'queued',
  'sent',
  'delivered',
  'delivery_delayed',
  'bounced',
  'complained',
  'opened',
  'clicked',
  'failed',
  'canceled',
  'suppressed',
] as const;
export type ResendLastEvent = (typeof RESEND_LAST_EVENTS)[number];

const id = z.object({
  id: uuidId('The message’s id: a transaction uuid of one of its recipients; anything else answers 404.'),
});

const listed = {
  id: z.string().openapi({ description: 'The uuid of the message’s first recipient (what the send answered).' }),
  from: z.string(),
  to: z.array(z.string()),
  cc: z.array(z.string()).nullable(),
  bcc: z.array(z.string()).nullable(),
  reply_to: z.array(z.string()).nullable(),
  subject: z.string(),
  created_at: z.string().openapi({ description: 'When it was accepted, ISO 8601.' }),
  scheduled_at: z.string().nullable().openapi({ description: 'When it is (or was) to be sent; null when at once.' }),
  last_event: z.enum(RESEND_LAST_EVENTS).openapi({
    description:
      'What last happened to it, in Resend’s words: the latest event of the recipient the id names (a machine’s ' +
      'open or click does not count; `suppressed` is a recipient on the suppression list).',
  }),
  message_id: z.string().openapi({ description: 'Its Message-ID header.' }),
};
export const resendEmail = z.object({
  object: z.literal('email'),
  ...listed,
  html: z.string().nullable(),
  text: z.string().nullable(),
  tags: z.array(z.object({ name: z.string(), value: z.string() })),
});
export type ResendEmail = z.infer<typeof resendEmail>;
export const resendListedEmail = z.object(listed);
export type ResendListedEmail = z.infer<typeof resendListedEmail>;

const example: ResendEmail = {
  object: 'email',
  id: '3f1c0d8e-6b1a-4c55-9a55-2f1f6ad1b7e4',
  from: 'Example Shop <receipts@example.com>',
  to: ['ada@example.org'],
  cc: null,
  bcc: null,
  reply_to: null,
  subject: 'Your receipt',
  html: '<p>Thank you for your order.</p>',
  text: null,
  created_at: '2026-11-27T09:30:00.000Z',
  scheduled_at: null,
  last_event: 'delivered',
  message_id: '<3f1c0d8e-6b1a-4c55-9a55-2f1f6ad1b7e4@example.com>',
  tags: [{ name: 'category', value: 'receipt' }],
};

export const resendGetEmail = resendOperation('GET /resend/emails/{id}', {
  summary: 'Read a message back',
  description:
    'Any message of the account, however it came in: /resend/emails, /v1/mail (any of its `trans_uuid`s) or SMTP.',
  params: id,
  sdkCall: "resend.emails.get('3f1c0d8e-6b1a-4c55-9a55-2f1f6ad1b7e4')",
  success: [{ status: 200, description: 'The message.', schema: resendEmail, example }],
  errors: ['not_found'],
});

export const resendListEmails = resendOperation('GET /resend/emails', {
  summary: 'List messages',
  description:
    'The account’s messages, newest first, in cursor pages: `has_more` says whether another page follows in the ' +
    'direction asked; pass the last `id` as `after` for the next, the first as `before` for the previous.',
  query: resendPageQuery('message'),
  sdkCall: 'resend.emails.list({ limit: 20 })',
  success: [
    resendList('One page.', resendListedEmail, [
      { ...example, html: undefined, text: undefined, tags: undefined, object: undefined },
    ]),
  ],
  errors: ['not_found'],
});

export const resendUpdateEmail = resendOperation('PATCH /resend/emails/{id}', {
  summary: 'Move a scheduled message',
  description:
    'A message sent with `scheduled_at` and still waiting moves to another moment (ISO 8601 with an offset, or ' +
    'words in UTC, at most 30 days ahead); all its recipients move together. Once it has gone or was canceled ' +
    'the change is refused (`validation_error`, 422).',
  params: id,
  body: z.strictObject({ scheduled_at: z.string().min(1).max(100) }),
  bodyExample: { scheduled_at: 'tomorrow at 9am' },
  sdkCall: "resend.emails.update({ id: '3f1c0d8e-6b1a-4c55-9a55-2f1f6ad1b7e4', scheduledAt: 'tomorrow at 9am' })",
  success: [resendRef('Moved.', 'email', '3f1c0d8e-6b1a-4c55-9a55-2f1f6ad1b7e4')],
  errors: ['not_found', 'unprocessable'],
});

export const resendCancelEmail = resendOperation('POST /resend/emails/{id}/cancel', {
  summary: 'Cancel a scheduled message',
  description:
    'A message sent with `scheduled_at` and still waiting is canceled for good: nothing is sent, its recipients ' +
    'show `canceled`, and a later update or cancel is refused (`validation_error`, 422).',
  params: id,
  sdkCall: "resend.emails.cancel('3f1c0d8e-6b1a-4c55-9a55-2f1f6ad1b7e4')",
  success: [resendRef('Canceled.', 'email', '3f1c0d8e-6b1a-4c55-9a55-2f1f6ad1b7e4')],
  errors: ['not_found', 'unprocessable'],
});

export const resendOperations = [
  resendSendEmail,
  resendSendBatch,
  resendGetEmail,
  resendListEmails,
  resendUpdateEmail,
  resendCancelEmail,
];

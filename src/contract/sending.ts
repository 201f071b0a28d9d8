// The sending calls of the contract: POST /v1/mail and /v1/mail/batch (our shape), POST
// /v1/emails and /v1/emails/batch (Resend's shape, so its SDK works against us), and the public
// unsubscribe and resubscribe calls the recipients' pages make.
import { z } from '@hono/zod-openapi';
import { operationsOf } from './common.ts';
import { MAX_BATCH, MAX_RECIPIENTS } from './values.ts';

// ---- the send request shapes ---------------------------------------------------------------------
// Unknown fields are reported; header names and values with CR or LF are refused; attachments are
// base64 content (/v1/mail) or also a URL to fetch (`path`, Resend's shape). src/server/sending/mail.schema.ts
// makes a Submission of them.

const NO_LINE_BREAKS = /^[^\r\n]*$/;
const HEADER_NAME = /^[!-9;-~]+$/; // printable ASCII without ':' (RFC 5322 §2.2)
/** Headers we set ourselves; a client may not override them. */
const RESERVED_HEADERS = new Set([
  'from',
  'to',
  'cc',
  'bcc',
  'subject',
  'reply-to',
  'sender',
  'message-id',
  'date',
  'return-path',
  'dkim-signature',
  'mime-version',
  'content-type',
  'content-transfer-encoding',
  'list-unsubscribe',
  'list-unsubscribe-post',
  'received',
]);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * One item or a list of them, read as a list. Normalising first (rather than a union of the two)
 * keeps zod's own messages: a union that fails both ways only says "Invalid input".
 */
function oneOrMany<T extends z.ZodType>(item: T, max: number, tooMany: string) {
  return z.preprocess(
    (v) => (v === undefined || v === null || Array.isArray(v) ? v : [v]),
    z.array(item).max(max, tooMany),
  );
}

const TOO_MANY_RECIPIENTS = `a message may have at most ${MAX_RECIPIENTS} recipients (to, cc and bcc together)`;
const TOO_MANY_REPLY_TO = `a message may have at most ${MAX_RECIPIENTS} reply-to addresses`;

const addressInput = z.union([
  z.string().max(400),
  z.strictObject({ email: z.string().max(320), name: z.string().max(200).nullish() }),
]);
const recipientList = oneOrMany(addressInput, MAX_RECIPIENTS, TOO_MANY_RECIPIENTS);
const resendRecipientList = oneOrMany(z.string().max(400), MAX_RECIPIENTS, TOO_MANY_RECIPIENTS);

const headerMap = z.record(z.string(), z.string().max(2000)).superRefine((headers, ctx) => {
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name))
      ctx.addIssue({ code: 'custom', message: `header name '${name}' is not a valid header name`, path: [name] });
    else if (RESERVED_HEADERS.has(name.toLowerCase()))
      ctx.addIssue({
        code: 'custom',
        message: `header '${name}' is set by the service and cannot be given`,
        path: [name],
      });
    if (!NO_LINE_BREAKS.test(value))
      ctx.addIssue({ code: 'custom', message: `header '${name}' contains a line break`, path: [name] });
  }
});

const filename = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[^\r\n\u0000/\\]+$/, 'must be a plain file name (no path, no line breaks)');

const contentType = z
  .string()
  .max(255)
  .regex(/^[\w.+-]+\/[\w.+-]+$/, 'must be a MIME type like application/pdf');

const attachmentSchema = z.strictObject({
  filename,
  content: z
    .string()
    .transform((s) => s.replace(/\s+/g, ''))
    .refine((s) => BASE64.test(s) && s.length % 4 === 0, 'must be base64'),
  content_type: contentType.optional(),
});

const subject = z.string().max(998).regex(NO_LINE_BREAKS, 'must not contain a line break');
const groupName = z.string().trim().min(1).max(100).regex(NO_LINE_BREAKS, 'must not contain a line break');

/** When to send a message: read by the server (src/server/lifecycle/scheduled-at.ts), which refuses what it cannot. */
const scheduledAt = z
  .string()
  .min(1)
  .max(100)
  .optional()
  .openapi({
    description:
      'Send it later, at most 30 days ahead: ISO 8601 with an offset (`2026-11-28T09:00:00Z`) or words in UTC ' +
      '(`in 1 hour`, `tomorrow at 9am`). It waits as `scheduled` until then (the monthly quota counts it when it ' +
      'goes); /resend/emails/{id} moves or cancels it meanwhile.',
  });

export const mailRequest = z.strictObject({
  from: addressInput,
  to: recipientList,
  cc: recipientList.optional(),
  bcc: recipientList.optional(),
  reply_to: oneOrMany(addressInput, MAX_RECIPIENTS, TOO_MANY_REPLY_TO).optional(),
  subject,
  html: z.string().optional(),
  text: z.string().optional(),
  headers: headerMap.optional(),
  attachments: z.array(attachmentSchema).max(100).optional(),
  group: groupName.optional(),
  tags: z.array(z.string().max(100).regex(NO_LINE_BREAKS)).max(20).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  online_attachment_id: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[\w-]+$/, 'must be an integration ID')
    .optional(),
  scheduled_at: scheduledAt,
});
export type MailRequest = z.infer<typeof mailRequest>;

/** Resend's rule for a tag's name and value: ASCII letters, digits, underscores and dashes. */
const TAG_CHARS = /^[A-Za-z0-9_-]*$/;
const TAG_RULE = 'may hold only ASCII letters, digits, underscores and dashes';

/**
 * One attachment in Resend's shape: base64 `content`, or a `path` (an http or https URL) the server
 * fetches once at acceptance (src/server/attachments/url-attachments.service.ts).
 */
const resendAttachmentFields = z.strictObject({
  filename: filename.optional(),
  content: z
    .union([z.string(), z.array(z.number().int().min(0).max(255))])
    .transform((c) => (typeof c === 'string' ? c.replace(/\s+/g, '') : Buffer.from(c).toString('base64')))
    .refine((s) => BASE64.test(s) && s.length % 4 === 0, 'must be base64')
    .optional(),
  content_type: contentType.optional(),
  path: z
    .string()
    .min(1)
    .max(2048)
    .optional()
    .openapi({
      description:
        'An http or https URL fetched once when the message is accepted, under the rules webhooks follow (no ' +
        'private, loopback or link-local address unless WEBHOOK_ALLOWED_NETWORKS allows it; redirects checked ' +
        'again), within the message’s size limit and ATTACHMENT_FETCH_TIMEOUT_SECONDS; a refusal or failure is a ' +
        '`validation_error` naming the attachment. `filename` defaults to the URL’s last segment, `content_type` ' +
        'to the answer’s.',
    }),
  content_id: z.string().max(255).regex(NO_LINE_BREAKS, 'must not contain a line break').optional().openapi({
    description: 'Sent inline with this Content-ID, for the HTML to show it with `cid:`.',
  }),
});

/** Resend's POST /emails body (https://resend.com/docs/api-reference/emails/send-email). */
export const resendRequest = z.strictObject({
  from: z.string().max(400),
  to: resendRecipientList,
  subject,
  bcc: resendRecipientList.optional(),
  cc: resendRecipientList.optional(),
  reply_to: oneOrMany(z.string().max(400), MAX_RECIPIENTS, TOO_MANY_REPLY_TO).optional(),
  html: z.string().optional(),
  text: z.string().optional(),
  react: z.never({ error: 'react content is rendered by the SDK; send html' }).optional(),
  headers: headerMap.optional(),
  attachments: z
    .array(resendAttachmentFields)
    .max(100)
    .superRefine((list, ctx) => {
      list.forEach((a, i) => {
        if ((a.content === undefined) === (a.path === undefined))
          ctx.addIssue({ code: 'custom', message: 'give content (base64) or path (a URL), one of them', path: [i] });
        else if (a.content !== undefined && a.filename === undefined)
          ctx.addIssue({
            code: 'custom',
            message: 'an attachment with content needs a filename',
            path: [i, 'filename'],
          });
      });
    })
    .optional(),
  tags: z
    .array(
      z.strictObject({
        name: z.string().min(1).max(256).regex(TAG_CHARS, TAG_RULE),
        value: z.string().max(256).regex(NO_LINE_BREAKS, 'must not contain a line break'),
      }),
    )
    .max(20)
    .superRefine((tags, ctx) => {
      tags.forEach((tag, i) => {
        // the "group" tag names the transaction group (spaces allowed), which /v1/mail limits to 100 characters
        if (tag.name === 'group' && tag.value.trim().length > 100)
          ctx.addIssue({ code: 'custom', message: 'a group name is at most 100 characters', path: [i, 'value'] });
        else if (tag.name !== 'group' && !TAG_CHARS.test(tag.value))
          ctx.addIssue({ code: 'custom', message: TAG_RULE, path: [i, 'value'] });
      });
    })
    .optional(),
  scheduled_at: scheduledAt,
  topic_id: z.string().optional(),
});
export type ResendRequest = z.infer<typeof resendRequest>;

// ---- the calls -----------------------------------------------------------------------------------

const templateFields = {
  template_id: z.string().max(200).openapi({
    description: 'A published template’s id or alias: its subject, HTML and text are rendered with `variables`.',
  }),
  variables: z
    .record(z.string(), z.unknown())
    .optional()
    .openapi({ description: 'The template’s variables; every variable it uses must be given.' }),
};
/** A send: the message itself, or a template with its variables (fields given beside it win). */
export const mailSend = z.union([mailRequest, mailRequest.partial({ subject: true }).extend(templateFields)]);
export const mailBatch = z.union([
  z.array(mailSend).min(1).max(MAX_BATCH),
  z.object({ messages: z.array(mailSend).min(1).max(MAX_BATCH) }),
]);

// Resend's fields we refuse are `never` in the check; the document states them as refused instead
const refused = (why: string) =>
  z
    .unknown()
    .optional()
    .openapi({ description: `Refused: ${why}.`, not: {} });
const resendDocumented = resendRequest.extend({
  react: refused('render it to html first'),
  attachments: z.array(resendAttachmentFields).max(100).optional(),
});
export const resendSend = z.union([
  resendDocumented,
  resendDocumented.partial({ subject: true }).extend({
    template: z.strictObject({ id: z.string().max(200), variables: z.record(z.string(), z.unknown()).optional() }),
  }),
]);
export const resendBatch = z.array(resendSend).min(1).max(100);

const idempotency = z.object({
  'idempotency-key': z
    .string()
    .min(1)
    .max(256)
    .optional()
    .openapi({
      description:
        'Up to 256 printable characters. The same key with the ' +
        'same body within 24 h answers the first response again ' +
        'and sends nothing; with another body it is 409.',
    }),
});

/** Resend's `x-batch-validation` header of a batch: `strict` (all or nothing, the default) or `permissive`. */
export const batchValidation = z.object({
  'x-batch-validation': z
    .enum(['strict', 'permissive'])
    .optional()
    .openapi({
      description:
        '`strict` (the default): all messages are accepted or none. `permissive`: the valid ones are accepted and ' +
        'each refused one is answered in `errors` with its index (the SDK’s `batchValidation`).',
    }),
});

const accepted = z.object({
  trans_uuid: z
    .string()
    .openapi({ description: 'The transaction of this recipient: reports, webhooks and the unsubscribe link name it.' }),
  to: z.string(),
  status: z.string().openapi({
    description:
      '`queued`; `scheduled` when sent with `scheduled_at`; `failed` when the address is on the suppression list ' +
      '(nothing is sent to it); `no_quota` when the month’s quota is used up.',
  }),
});

// beside a JSON body's own two
const sendErrors = [
  'domain_not_verified',
  'missing_variables',
  'unprocessable', // a template_id that names a draft
  'conflict',
  'too_many_requests',
  'not_found',
] as const;
const sendingOperation = operationsOf({ tag: 'Sending', access: 'apiKey' });
const unsubscribeOperation = operationsOf({ tag: 'Unsubscribe', access: 'public' });
const example = {
  from: { email: 'receipts@example.com', name: 'Example Shop' },
  to: ['ada@example.org'],
  subject: 'Your receipt',
  html: '<p>Thank you for your order.</p>',
  text: 'Thank you for your order.',
  group: 'Receipts',
  online_attachment_id: 'oa_4tR9xWq2LmZk',
};
const templateExample = {
  from: { email: 'receipts@example.com', name: 'Example Shop' },
  to: ['ada@example.org'],
  template_id: 'receipt',
  variables: { name: 'Ada', number: '1042' },
  group: 'Receipts',
};

export const sendMail = sendingOperation('POST /v1/mail', {
  summary: 'Send a message',
  description:
    'Accepts one message for every recipient in to, cc and bcc (50 at most) and answers once it is stored; delivery ' +
    'follows. The From domain must be a verified sending domain. Give `html` and/or `text`, or a `template_id` ' +
    'with `variables`. `online_attachment_id` adds a tracked download link (see Tracked attachments) to the ' +
    'message, one per recipient.',
  body: mailSend,
  bodyExamples: {
    message: { summary: 'A message, with a tracked download link', value: example },
    template: { summary: 'A published template with its variables', value: templateExample },
  },
  checkedByHandler: true,
  headers: idempotency,
  success: [
    {
      status: 202,
      description: 'Accepted: one transaction per recipient.',
      schema: z.object({ data: z.array(accepted) }),
      example: {
        data: [{ trans_uuid: '3f1c0d8e-6b1a-4c55-9a55-2f1f6ad1b7e4', to: 'ada@example.org', status: 'queued' }],
      },
    },
  ],
  errors: [...sendErrors],
});

export const sendMailBatch = sendingOperation('POST /v1/mail/batch', {
  summary: 'Send a batch of messages',
  description:
    `Up to ${MAX_BATCH} messages in one request (a list, or { messages: [...] }), each as POST /v1/mail ` +
    `takes it; all are accepted together or none (a problem names the message's index, e.g. \`3.subject\`).`,
  body: mailBatch,
  bodyExample: [example],
  checkedByHandler: true,
  headers: idempotency,
  success: [
    {
      status: 202,
      description: 'Accepted: per message, its recipients’ transactions.',
      schema: z.object({ data: z.array(z.array(accepted)) }),
    },
  ],
  errors: [...sendErrors],
});

const resendExample = {
  from: 'Example Shop <receipts@example.com>',
  to: ['ada@example.org'],
  subject: 'Your receipt',
  html: '<p>Thank you for your order.</p>',
};

/**
 * Resend's POST /emails and /emails/batch under `base`: /resend (refusals in Resend's shape alone)
 * or /v1 (kept for clients set up before /resend: Resend's fields beside our envelope).
 */
function resendSends<B extends '/v1' | '/resend'>(base: B) {
  const resendShape = base === '/resend';
  const refusals = resendShape
    ? 'Refusals are Resend’s `{ statusCode, name, message }`.'
    : 'Refusals carry Resend’s `name`, `message` and `statusCode` beside our `error`; /resend/emails answers ' +
      'Resend’s shape alone.';
  const resendCall = operationsOf({ tag: 'Resend-compatible', access: 'apiKey', resendShape });
  const send = resendCall(`POST ${base}/emails`, {
    summary: resendShape ? 'Send a message' : 'Send a message (at /v1)',
    description:
      `Resend’s POST /emails, so the official \`resend\` SDK works with its base URL set to this service’s ${base}. ` +
      `Answers the transaction uuid of the first recipient as \`id\`. ${refusals} An attachment's \`path\` (a ` +
      'URL) is fetched before the answer. Not supported: `react` (render it to html first).',
    body: resendSend,
    bodyExample: resendExample,
    checkedByHandler: true,
    headers: idempotency,
    sdkCall: 'resend.emails.send',
    success: [
      {
        status: 200,
        description: 'Accepted.',
        schema: z.object({ id: z.string() }),
        example: { id: '3f1c0d8e-6b1a-4c55-9a55-2f1f6ad1b7e4' },
      },
    ],
    errors: [...sendErrors],
  });
  const batch = resendCall(`POST ${base}/emails/batch`, {
    summary: resendShape ? 'Send a batch' : 'Send a batch (at /v1)',
    description:
      'Resend’s POST /emails/batch: up to 100 messages, all accepted together or none; with ' +
      '`x-batch-validation: permissive` the valid ones are accepted and the others answered in `errors` (200 even ' +
      `when none was valid). ${refusals}`,
    body: resendBatch,
    bodyExample: [resendExample],
    checkedByHandler: true,
    headers: idempotency.extend(batchValidation.shape),
    sdkCall: 'resend.batch.send',
    success: [
      {
        status: 200,
        description: 'Accepted: one id per message accepted, in order.',
        schema: z.object({
          data: z.array(z.object({ id: z.string() })),
          errors: z
            .array(
              z.object({
                index: z.number().int().openapi({ description: 'The refused message’s place in the list, from 0.' }),
                message: z.string().openapi({ description: 'Why it was refused.' }),
              }),
            )
            .optional()
            .openapi({ description: 'Permissive batches only: each message refused, by index.' }),
        }),
      },
    ],
    errors: [...sendErrors],
  });
  return { send, batch };
}

export const { send: sendEmail, batch: sendEmailBatch } = resendSends('/v1');
export const { send: resendSendEmail, batch: resendSendBatch } = resendSends('/resend');

export const transactionBody = z.object({ transaction_id: z.string().max(100) });
const subscriptionAnswer = z.object({ message: z.string(), redirect: z.string().nullable() });

export const unsubscribe = unsubscribeOperation('POST /v1/unsubscribe', {
  summary: 'Unsubscribe a recipient',
  description:
    'Made by the recipient’s unsubscribe page: the transaction uuid from the link is the only credential. The ' +
    'address goes on the account’s suppression list.',
  body: transactionBody,
  bodyExample: { transaction_id: '3f1c0d8e-6b1a-4c55-9a55-2f1f6ad1b7e4' },
  success: [{ status: 200, description: 'Unsubscribed.', schema: subscriptionAnswer }],
  errors: ['not_found'],
});

export const resubscribe = unsubscribeOperation('POST /v1/resubscribe', {
  summary: 'Resubscribe a recipient',
  description: 'Undoes an unsubscribe made through the page, from the same link.',
  body: transactionBody,
  bodyExample: { transaction_id: '3f1c0d8e-6b1a-4c55-9a55-2f1f6ad1b7e4' },
  success: [{ status: 200, description: 'Resubscribed.', schema: subscriptionAnswer }],
  errors: ['not_found'],
});

export const sendingOperations = [sendMail, sendMailBatch, sendEmail, sendEmailBatch, unsubscribe, resubscribe];

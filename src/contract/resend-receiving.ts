// Received mail on the Resend-compatible surface (/resend/emails/receiving): Resend's calls and
// shapes, so the `resend` SDK's `emails.receiving.*` work unchanged, `forward` included (it reads
// the raw message from `raw.download_url`). docs/receiving.md says how mail is received.
import { z } from '@hono/zod-openapi';
import { operationsOf, resendList, resendOperation, uuidId } from './common.ts';

const uuid = (description: string) =>
  uuidId(`${description}; anything but a uuid answers 404.`, '0b5f8c64-2f7e-4a47-9c55-1d1e2b6c7a10');

const emailId = z.object({ id: uuid('The received message’s id') });
const attachmentIds = z.object({
  id: uuid('The received message’s id'),
  attachmentId: uuid('The attachment’s id'),
});

const attachment = z.object({
  id: z.string(),
  filename: z.string().nullable(),
  size: z.number().int().openapi({ description: 'Its decoded size in bytes.' }),
  content_type: z.string(),
  content_id: z.string().nullable().openapi({ description: 'Its Content-ID without the angle brackets.' }),
  content_disposition: z.string().nullable().openapi({ description: '`attachment`, `inline`, or null.' }),
});

const verdict = z.string().openapi({ description: 'The RFC 8601 result: pass, fail, softfail, neutral, none, …' });
const listed = {
  id: z.string().openapi({ description: 'The received message’s id (a uuid).' }),
  from: z.string().openapi({ description: 'The From header’s first mailbox, `Name <address>`.' }),
  to: z.array(z.string()),
  cc: z.array(z.string()).nullable(),
  bcc: z.array(z.string()).nullable(),
  reply_to: z.array(z.string()).nullable(),
  received_for: z.array(z.string()).openapi({
    description: 'The envelope recipients it was delivered to here (plus addresses such as support+ticket-7@ kept).',
  }),
  subject: z.string(),
  message_id: z.string().openapi({ description: 'Its Message-ID header ("" when it had none).' }),
  created_at: z.string().openapi({ description: 'When it was received, ISO 8601.' }),
  attachments: z.array(attachment),
  authentication: z.object({ spf: verdict, dkim: verdict, dmarc: verdict, flagged: z.boolean() }).openapi({
    description:
      'SPF, DKIM and DMARC as checked on arrival; `flagged` when it failed DMARC under a `reject` policy and was ' +
      'kept (docs/receiving.md).',
  }),
  in_reply_to_email_id: z.string().nullable().openapi({
    description: 'The id of the message sent through this service that it answers (In-Reply-To / References).',
  }),
};
export const receivedListed = z.object(listed);
export type ReceivedListed = z.infer<typeof receivedListed>;
export const receivedEmail = z.object({
  object: z.literal('email'),
  ...listed,
  html: z.string().nullable(),
  text: z.string().nullable(),
  headers: z.record(z.string(), z.string()).openapi({
    description: 'Every header by name (lower case; a repeated header’s values joined by a line break).',
  }),
  raw: z.object({ download_url: z.string(), expires_at: z.string() }).openapi({
    description: 'The message as received, with our Authentication-Results on top: a signed link, valid one hour.',
  }),
});
export type ReceivedEmail = z.infer<typeof receivedEmail>;
const attachmentData = attachment.extend({
  download_url: z.string().openapi({ description: 'A signed link to its bytes, valid one hour.' }),
  expires_at: z.string(),
});
export type ReceivedAttachmentData = z.infer<typeof attachmentData>;

const EXAMPLE_ID = '0b5f8c64-2f7e-4a47-9c55-1d1e2b6c7a10';
const listedExample: ReceivedListed = {
  id: EXAMPLE_ID,
  from: 'Ann <ann@example.org>',
  to: ['support@shop.example'],
  cc: null,
  bcc: null,
  reply_to: null,
  received_for: ['support+ticket-7@shop.example'],
  subject: 'Re: Your order',
  message_id: '<CAF1234@mail.example.org>',
  created_at: '2026-11-28T09:30:00.000Z',
  attachments: [],
  authentication: { spf: 'pass', dkim: 'pass', dmarc: 'pass', flagged: false },
  in_reply_to_email_id: null,
};

/** Resend's cursor pages over received mail: ids are uuids, so a malformed cursor is a 422. */
const pageQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(20).openapi({ description: '1 to 100; 20 if not given.' }),
    after: z.uuid().optional().openapi({ description: 'The page after this message (older ones).' }),
    before: z.uuid().optional().openapi({ description: 'The page before this message (newer ones).' }),
  })
  .refine((q) => !(q.after && q.before), { message: 'give after or before, not both', path: ['before'] });

export const resendListReceived = resendOperation('GET /resend/emails/receiving', {
  summary: 'List received mail',
  description:
    'Mail received for the account’s receiving domains, newest first, in cursor pages (`has_more`; the last `id` ' +
    'as `after` for the next page).',
  query: pageQuery,
  sdkCall: 'resend.emails.receiving.list({ limit: 20 })',
  success: [resendList('One page.', receivedListed, [listedExample])],
  errors: ['not_found'],
});

export const resendGetReceived = resendOperation('GET /resend/emails/receiving/{id}', {
  summary: 'Read a received message',
  description: 'Its fields, text, HTML, every header, and a signed link to the raw message.',
  params: emailId,
  query: z.object({
    html_format: z.enum(['data_uri', 'cid']).optional().openapi({
      description: 'Accepted for the SDK; the HTML is answered as received (`cid:` references kept).',
    }),
  }),
  sdkCall: `resend.emails.receiving.get('${EXAMPLE_ID}')`,
  success: [
    {
      status: 200,
      description: 'The message.',
      schema: receivedEmail,
      example: {
        object: 'email',
        ...listedExample,
        html: null,
        text: 'Where is my parcel?',
        headers: { subject: 'Re: Your order' },
        raw: { download_url: 'https://transact.example/v1/received-files/…', expires_at: '2026-11-28T10:30:00.000Z' },
      },
    },
  ],
  errors: ['not_found'],
});

export const resendListReceivedAttachments = resendOperation('GET /resend/emails/receiving/{id}/attachments', {
  summary: 'List a received message’s attachments',
  description: 'Each with a signed link to its bytes, valid one hour.',
  params: emailId,
  query: pageQuery,
  sdkCall: `resend.emails.receiving.attachments.list({ emailId: '${EXAMPLE_ID}' })`,
  success: [resendList('Its attachments.', attachmentData, [])],
  errors: ['not_found'],
});

export const resendGetReceivedAttachment = resendOperation(
  'GET /resend/emails/receiving/{id}/attachments/{attachmentId}',
  {
    summary: 'Read a received attachment',
    description: 'Its metadata and a signed link to its bytes, valid one hour.',
    params: attachmentIds,
    sdkCall: `resend.emails.receiving.attachments.get({ emailId: '${EXAMPLE_ID}', id: '…' })`,
    success: [
      {
        status: 200,
        description: 'The attachment.',
        schema: attachmentData.extend({ object: z.literal('attachment') }),
        example: {
          object: 'attachment',
          id: '5d0c…',
          filename: 'photo.jpg',
          size: 20480,
          content_type: 'image/jpeg',
          content_id: null,
          content_disposition: 'attachment',
          download_url: 'https://transact.example/v1/received-files/…',
          expires_at: '2026-11-28T10:30:00.000Z',
        },
      },
    ],
    errors: ['not_found'],
  },
);

export const getReceivedFile = operationsOf({ tag: 'Inbound', access: 'public' })(
  'GET /v1/received-files/{id}/{file}',
  {
    summary: 'Download a received message or attachment',
    description:
      'The target of a `download_url`: the raw message (`file` = `raw`, with our Authentication-Results on top) or ' +
      'an attachment, served as a download. The link is signed and expires; a wrong or expired one answers 404.',
    params: z.object({
      id: uuid('The received message’s id'),
      file: z.string().max(40).openapi({ description: '`raw`, or an attachment’s id.' }),
    }),
    query: z.object({
      expires: z.coerce.number().int().min(0).max(1e13).openapi({ description: 'Unix seconds.' }),
      signature: z.string().max(128),
    }),
    success: [
      {
        status: 200,
        description: 'The bytes, as a download.',
        content: {
          'message/rfc822': 'The raw message.',
          'application/octet-stream': 'An attachment, decoded (its own type is in the API’s answer).',
        },
      },
    ],
    errors: ['not_found'],
  },
);

export const receivingOperations = [
  resendListReceived,
  resendGetReceived,
  resendListReceivedAttachments,
  resendGetReceivedAttachment,
  getReceivedFile,
];

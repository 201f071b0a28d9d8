// A sent message's attachments read back on the Resend-compatible surface (`resend.emails.attachments`):
// each with a signed `download_url` that serves its bytes for an hour without the API key.
import { z } from '@hono/zod-openapi';
import { operationsOf, resendList, resendOperation } from './common.ts';

/** How long a `download_url` works, in seconds. */
export const ATTACHMENT_URL_SECONDS = 3600;

const emailId = z
  .string()
  .max(100)
  .openapi({ description: 'The message’s id: a transaction uuid of one of its recipients.' });
const attachmentId = z.string().max(100).openapi({ description: 'The attachment’s id, as the list answers it.' });

const fields = {
  id: attachmentId,
  filename: z.string().optional().openapi({ description: 'Its file name, when it has one.' }),
  size: z.number().int().openapi({ description: 'Its size in bytes.' }),
  content_type: z.string().openapi({ description: 'Its MIME type, as sent.' }),
  content_disposition: z.enum(['inline', 'attachment']).openapi({
    description: '`inline` when it has a `content_id` (an image the HTML shows with `cid:`), else `attachment`.',
  }),
  content_id: z.string().optional().openapi({ description: 'The Content-ID the HTML refers to it by.' }),
  download_url: z.string().openapi({
    description:
      'Serves its bytes, as a download, without the API key until `expires_at`; signed, so a changed or expired ' +
      'URL is refused (403).',
  }),
  expires_at: z
    .string()
    .openapi({ description: 'When `download_url` stops working, ISO 8601: an hour after the call.' }),
};
export const resendAttachment = z.object(fields);
export type ResendAttachment = z.infer<typeof resendAttachment>;

const example: ResendAttachment = {
  id: '8d3c2a1e-4b5f-8a6c-9d7e-0f1a2b3c4d5e',
  filename: 'invoice-1042.pdf',
  size: 48213,
  content_type: 'application/pdf',
  content_disposition: 'attachment',
  download_url:
    'https://mail.example.com/v1/emails/3f1c0d8e-6b1a-4c55-9a55-2f1f6ad1b7e4/attachments/' +
    '8d3c2a1e-4b5f-8a6c-9d7e-0f1a2b3c4d5e/download?expires=1795000000&signature=2xQ…',
  expires_at: '2026-11-28T10:30:00.000Z',
};

export const resendListAttachments = resendOperation('GET /resend/emails/{email_id}/attachments', {
  summary: 'List a message’s attachments',
  description:
    'The attachments of any message of the account (sent by the API, with `path` or `content`, or by SMTP), in the ' +
    'order they were sent, each with a `download_url`. `limit` (1 to 100), `after` and `before` (an attachment’s ' +
    'id) page through them; `has_more` says whether more follow in the direction asked.',
  params: z.object({ email_id: emailId }),
  query: z
    .object({
      limit: z.coerce
        .number()
        .int()
        .min(1)
        .max(100)
        .default(100)
        .openapi({ description: '1 to 100; 100 if not given.' }),
      after: attachmentId.optional(),
      before: attachmentId.optional(),
    })
    .refine((q) => !(q.after && q.before), { message: 'give after or before, not both', path: ['before'] }),
  sdkCall: "resend.emails.attachments.list({ emailId: '3f1c0d8e-6b1a-4c55-9a55-2f1f6ad1b7e4' })",
  success: [resendList('Its attachments.', resendAttachment, [example])],
  errors: ['not_found'],
});

export const resendGetAttachment = resendOperation('GET /resend/emails/{email_id}/attachments/{id}', {
  summary: 'Read one attachment of a message',
  description: 'One attachment of a message of the account, with a fresh `download_url`.',
  params: z.object({ email_id: emailId, id: attachmentId }),
  sdkCall:
    "resend.emails.attachments.get({ emailId: '3f1c0d8e-6b1a-4c55-9a55-2f1f6ad1b7e4', id: " +
    "'8d3c2a1e-4b5f-8a6c-9d7e-0f1a2b3c4d5e' })",
  success: [
    {
      status: 200,
      description: 'The attachment.',
      schema: resendAttachment.extend({ object: z.literal('attachment') }),
      example: { object: 'attachment', ...example },
    },
  ],
  errors: ['not_found'],
});

export const downloadAttachment = operationsOf({ tag: 'Resend-compatible', access: 'public' })(
  'GET /v1/emails/{email_id}/attachments/{id}/download',
  {
    summary: 'Download an attachment of a sent message',
    description:
      'The bytes of an attachment, through the `download_url` the attachment calls answer: no API key, but the ' +
      '`expires` and `signature` they carry, which refuse it (403 `forbidden`) once changed or past `expires`. ' +
      'Served as a download (`Content-Disposition: attachment`, `application/octet-stream`, `nosniff`).',
    params: z.object({ email_id: emailId, id: attachmentId }),
    query: z.object({
      expires: z.string().max(20).openapi({ description: 'Until when it works, in seconds since 1970.' }),
      signature: z.string().max(100).openapi({ description: 'The HMAC that makes it ours.' }),
    }),
    success: [
      { status: 200, description: 'The file.', content: { 'application/octet-stream': 'The attachment’s bytes.' } },
    ],
    errors: ['forbidden', 'not_found'],
  },
);

export const resendAttachmentOperations = [resendListAttachments, resendGetAttachment, downloadAttachment];

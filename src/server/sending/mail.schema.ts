// The send request shapes (docs/architecture.md §7 "Send"; Resend's API for /v1/emails), checked with zod and
// normalised into one Submission. Unknown fields are reported; header names and values with CR or
// LF are refused; attachments are base64 content only (no paths, no URLs).
import { z } from 'zod';
import type { Address, StoredAttachment } from '../db/schema.ts';
import { AddressError, parseAddress } from './addresses.ts';

export const MAX_RECIPIENTS = 50;
export const MAX_MESSAGE_BYTES = 25 * 1024 * 1024;
export const MAX_BATCH = 500;
export const DEFAULT_GROUP = 'Default';

export interface Submission {
  from: Address;
  to: Address[];
  cc: Address[];
  bcc: Address[];
  replyTo: Address[];
  subject: string;
  html: string | null;
  text: string | null;
  headers: Record<string, string>;
  attachments: StoredAttachment[];
  group: string;
  tags: string[];
  metadata: Record<string, unknown> | null;
  /** The integration ID of an online attachment link to add to the mail (issue 15). */
  onlineAttachmentId?: string;
}

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
});
export type MailRequest = z.infer<typeof mailRequest>;

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
    .array(
      z.strictObject({
        filename,
        content: z
          .union([z.string(), z.array(z.number().int().min(0).max(255))])
          .transform((c) => (typeof c === 'string' ? c.replace(/\s+/g, '') : Buffer.from(c).toString('base64')))
          .refine((s) => BASE64.test(s) && s.length % 4 === 0, 'must be base64'),
        content_type: contentType.optional(),
        path: z.never({ error: 'attachments by path or URL are not accepted; send base64 content' }).optional(),
        content_id: z.string().max(255).optional(),
      }),
    )
    .max(100)
    .optional(),
  tags: z
    .array(
      z.strictObject({
        name: z.string().min(1).max(256).regex(NO_LINE_BREAKS, 'must not contain a line break'),
        value: z.string().max(256).regex(NO_LINE_BREAKS, 'must not contain a line break'),
      }),
    )
    .max(20)
    .superRefine((tags, ctx) => {
      // the "group" tag names the transaction group, which /v1/mail limits to 100 characters
      tags.forEach((tag, i) => {
        if (tag.name === 'group' && tag.value.trim().length > 100)
          ctx.addIssue({ code: 'custom', message: 'a group name is at most 100 characters', path: [i, 'value'] });
      });
    })
    .optional(),
  scheduled_at: z.never({ error: 'scheduled sending is not supported' }).optional(),
  topic_id: z.string().optional(),
});
export type ResendRequest = z.infer<typeof resendRequest>;

export class SubmissionError extends Error {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
  }
}

function addresses(value: unknown, path: string): Address[] {
  if (value === undefined || value === null) return [];
  const list = Array.isArray(value) ? value : [value];
  return list.map((item, i) => {
    try {
      return parseAddress(item as string);
    } catch (err) {
      if (err instanceof AddressError)
        throw new SubmissionError(err.message, Array.isArray(value) ? `${path}.${i}` : path);
      throw err;
    }
  });
}

function finish(
  s: Omit<Submission, 'attachments'> & { attachments: { filename: string; content: string; content_type?: string }[] },
): Submission {
  if (s.to.length === 0) throw new SubmissionError('at least one recipient is required', 'to');
  const count = s.to.length + s.cc.length + s.bcc.length;
  if (count > MAX_RECIPIENTS)
    throw new SubmissionError(
      `a message may have at most ${MAX_RECIPIENTS} recipients (to, cc and bcc together); this one has ${count}`,
      'to',
    );
  if (!s.html && !s.text) throw new SubmissionError('html or text is required', 'html');
  let size = Buffer.byteLength(s.html ?? '') + Buffer.byteLength(s.text ?? '');
  const attachments = s.attachments.map((a) => {
    size += Math.floor((a.content.length * 3) / 4);
    return { filename: a.filename, content: a.content, content_type: a.content_type ?? 'application/octet-stream' };
  });
  if (size > MAX_MESSAGE_BYTES)
    throw new SubmissionError(`the message is larger than ${MAX_MESSAGE_BYTES / 1024 / 1024} MB`, 'attachments');
  return { ...s, attachments };
}

/** The fields both request shapes carry, under the same names. */
interface CommonFields {
  from: unknown;
  to: unknown;
  cc?: unknown;
  bcc?: unknown;
  reply_to?: unknown;
  subject: string;
  html?: string;
  text?: string;
  headers?: Record<string, string>;
  attachments?: { filename: string; content: string; content_type?: string }[];
}

function common(body: CommonFields) {
  return {
    from: addresses(body.from, 'from')[0],
    to: addresses(body.to, 'to'),
    cc: addresses(body.cc, 'cc'),
    bcc: addresses(body.bcc, 'bcc'),
    replyTo: addresses(body.reply_to, 'reply_to'),
    subject: body.subject,
    html: body.html ?? null,
    text: body.text ?? null,
    headers: body.headers ?? {},
    attachments: body.attachments ?? [],
  };
}

/** A checked /v1/mail body as a Submission (throws SubmissionError for address or size problems). */
export function fromMailRequest(body: MailRequest): Submission {
  return finish({
    ...common(body),
    group: body.group ?? DEFAULT_GROUP,
    tags: body.tags ?? [],
    metadata: body.metadata ?? null,
    onlineAttachmentId: body.online_attachment_id,
  });
}

/** A checked Resend body as a Submission; a tag named "group" names the transaction group. */
export function fromResendRequest(body: ResendRequest): Submission {
  const group = body.tags?.find((t) => t.name === 'group')?.value;
  return finish({
    ...common(body),
    group: group?.trim() || DEFAULT_GROUP,
    tags: (body.tags ?? []).map((t) => `${t.name}:${t.value}`),
    metadata: null,
  });
}

// The send requests (docs/architecture.md §7 "Send"; Resend's API for /v1/emails), checked by the
// contract's schemas (src/contract/sending.ts), normalised here into one Submission: addresses parsed,
// recipients counted, the size checked.
import { MAX_RECIPIENTS } from '../../contract/values.ts';
import type { MailRequest, ResendRequest } from '../../contract/sending.ts';
import type { Address, StoredAttachment } from '../db/schema.ts';
import { AddressError, parseAddress } from '../core/addresses.ts';
import { readScheduledAt } from '../lifecycle/scheduled-at.ts';
import type { PathAttachment } from '../attachments/url-attachments.service.ts';

export const MAX_MESSAGE_BYTES = 25 * 1024 * 1024;
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
  /** Attachments given by URL (Resend's `path`), fetched before acceptance (url-attachments.service.ts). */
  pathAttachments?: PathAttachment[];
  group: string;
  tags: string[];
  metadata: Record<string, unknown> | null;
  /** The integration ID of an online attachment link to add to the mail. */
  onlineAttachmentId?: string;
  /** When to send it (`scheduled_at`); absent: at once. */
  scheduledAt?: Date;
}

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

type InlineAttachment = { filename: string; content: string; content_type?: string; content_id?: string };

function finish(s: Omit<Submission, 'attachments'> & { attachments: InlineAttachment[] }): Submission {
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
    const type = a.content_type ?? 'application/octet-stream';
    return {
      filename: a.filename,
      content: a.content,
      content_type: type,
      ...(a.content_id && { content_id: a.content_id }),
    };
  });
  if (size > MAX_MESSAGE_BYTES)
    throw new SubmissionError(`the message is larger than ${MAX_MESSAGE_BYTES / 1024 / 1024} MB`, 'attachments');
  return { ...s, attachments };
}

/** The fields both request shapes carry, under the same names. */
interface CommonFields {
  scheduled_at?: string;
  from: unknown;
  to: unknown;
  cc?: unknown;
  bcc?: unknown;
  reply_to?: unknown;
  subject: string;
  html?: string;
  text?: string;
  headers?: Record<string, string>;
  attachments?: InlineAttachment[];
}

/** `scheduled_at` read at the moment of the request (scheduled-at.ts). */
function scheduledAtOf(text: string | undefined): { scheduledAt?: Date } {
  if (text === undefined) return {};
  const read = readScheduledAt(text, new Date());
  if ('problem' in read) throw new SubmissionError(read.problem, 'scheduled_at');
  return { scheduledAt: read.at };
}

function common(body: CommonFields) {
  return {
    ...scheduledAtOf(body.scheduled_at),
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
  const given = body.attachments ?? [];
  // the contract lets an attachment have content (with a filename) or a path, never both
  const inline = given.flatMap((a) =>
    a.content === undefined ? [] : [{ ...a, filename: a.filename ?? 'attachment', content: a.content }],
  );
  const paths = given.flatMap(({ path, content: _, ...a }, index) =>
    path === undefined ? [] : [{ ...a, index, url: path }],
  );
  return finish({
    ...common({ ...body, attachments: inline }),
    ...(paths.length > 0 && { pathAttachments: paths }),
    group: group?.trim() || DEFAULT_GROUP,
    tags: (body.tags ?? []).map((t) => `${t.name}:${t.value}`),
    metadata: null,
  });
}

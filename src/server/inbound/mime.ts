// A received message's fields, read by mailparser's streaming parser: headers, text and HTML are
// kept; each attachment is streamed to the storage as it is decoded, so no attachment is ever whole
// in memory. A header section over mailsplit's bound (1 MB) or a broken structure is an error.
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { AddressObject, AttachmentStream, HeaderLines, MessageText } from 'mailparser';
import type { AppContext } from '../core/context.ts';
import type { InboundAttachmentRow, InboundHeader } from '../db/schema.ts';

/** At most this many headers are kept for the API (the raw message keeps them all). */
const MAX_HEADERS = 500;

export interface ParsedInbound {
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  replyTo: string[];
  subject: string;
  messageId: string | null;
  inReplyTo: string | null;
  references: string[];
  date: Date | null;
  text: string | null;
  html: string | null;
  headers: InboundHeader[];
  attachments: InboundAttachmentRow[];
}

/** `Name <a@b>` for each mailbox of an address header (groups flattened). */
function addresses(value: unknown): string[] {
  const objects = ([] as AddressObject[]).concat((value as AddressObject | AddressObject[] | undefined) ?? []);
  const out: string[] = [];
  const visit = (list: AddressObject['value']) => {
    for (const a of list) {
      if (a.group) visit(a.group);
      else if (a.address) out.push(a.name ? `${a.name} <${a.address}>` : a.address);
    }
  };
  for (const o of objects) visit(o.value ?? []);
  return out;
}

const ids = (value: unknown): string[] =>
  ([] as unknown[])
    .concat(value ?? [])
    .filter((v): v is string => typeof v === 'string')
    .flatMap((v) => v.match(/<[^<>\s]+>/g) ?? []);

/**
 * Every header by lower-case name, in the order each first appears; repeated ones joined by a line
 * break (Resend's `headers` object: the receiving API and full `email.received` payloads).
 */
export function headersByName(headers: readonly InboundHeader[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { name, value } of headers) {
    const key = name.toLowerCase();
    out[key] = key in out ? `${out[key]}\n${value}` : value;
  }
  return out;
}

/** A header line as written, its name and its unfolded value. */
function headerOf(line: HeaderLines[number]): InboundHeader {
  const colon = line.line.indexOf(':');
  const name = colon > 0 ? line.line.slice(0, colon) : line.key;
  return {
    name,
    value: line.line
      .slice(colon + 1)
      .replace(/\r?\n[ \t]/g, ' ')
      .trim(),
  };
}

/** `value` without U+0000, which PostgreSQL's text and jsonb cannot hold (the raw message keeps it). */
const withoutNul = (value: string): string => (value.includes('\u0000') ? value.replaceAll('\u0000', '') : value);
const nullable = (value: string | null): string | null => (value === null ? null : withoutNul(value));

/**
 * The parsed fields as the database can hold them: a NUL in a header, a text part or a file name
 * (mail from anyone may carry one) is dropped, so such a message is stored rather than failing its
 * insert on every retry of the sender.
 */
export function storableFields(parsed: ParsedInbound): ParsedInbound {
  return {
    ...parsed,
    from: withoutNul(parsed.from),
    to: parsed.to.map(withoutNul),
    cc: parsed.cc.map(withoutNul),
    bcc: parsed.bcc.map(withoutNul),
    replyTo: parsed.replyTo.map(withoutNul),
    subject: withoutNul(parsed.subject),
    messageId: nullable(parsed.messageId),
    inReplyTo: nullable(parsed.inReplyTo),
    references: parsed.references.map(withoutNul),
    text: nullable(parsed.text),
    html: nullable(parsed.html),
    headers: parsed.headers.map((h) => ({ name: withoutNul(h.name), value: withoutNul(h.value) })),
    attachments: parsed.attachments.map((a) => ({
      ...a,
      filename: nullable(a.filename),
      content_type: withoutNul(a.content_type),
      content_disposition: nullable(a.content_disposition),
      content_id: nullable(a.content_id),
    })),
  };
}

/**
 * Parses `raw`, storing each attachment under `inbound/<emailId>/<attachment id>`. On failure the
 * attachments stored so far stay (the caller deletes the message's folder).
 */
export async function parseInbound(ctx: AppContext, emailId: string, raw: Readable): Promise<ParsedInbound> {
  // loaded on the first received message: a process that receives none never reads mailparser
  const { MailParser } = await import('mailparser');
  return new Promise((resolve, reject) => {
    const parser = new MailParser({ skipTextToHtml: true, skipTextLinks: true, skipImageLinks: true });
    const out: ParsedInbound = {
      from: '',
      to: [],
      cc: [],
      bcc: [],
      replyTo: [],
      subject: '',
      messageId: null,
      inReplyTo: null,
      references: [],
      date: null,
      text: null,
      html: null,
      headers: [],
      attachments: [],
    };
    const stored: Promise<unknown>[] = [];
    const fail = (err: unknown) => {
      raw.destroy();
      reject(err);
    };
    parser.on('headers', (headers: Map<string, unknown>) => {
      out.from = addresses(headers.get('from'))[0] ?? '';
      out.to = addresses(headers.get('to'));
      out.cc = addresses(headers.get('cc'));
      out.bcc = addresses(headers.get('bcc'));
      out.replyTo = addresses(headers.get('reply-to'));
      out.subject = String(headers.get('subject') ?? '');
      out.messageId = ids(headers.get('message-id'))[0] ?? null;
      out.inReplyTo = ids(headers.get('in-reply-to'))[0] ?? null;
      out.references = ids(headers.get('references'));
      const date = headers.get('date');
      out.date = date instanceof Date && !Number.isNaN(date.getTime()) ? date : null;
    });
    parser.on('headerLines', (lines: HeaderLines) => {
      out.headers = lines.slice(0, MAX_HEADERS).map(headerOf);
    });
    parser.on('data', (data: AttachmentStream | MessageText) => {
      if (data.type === 'text') {
        out.text = data.text ?? null;
        out.html = typeof data.html === 'string' ? data.html : null;
        return;
      }
      const id = randomUUID();
      const key = `inbound/${emailId}/${id}`;
      const row: InboundAttachmentRow = {
        id,
        filename: data.filename ?? null,
        content_type: data.contentType,
        content_disposition: data.contentDisposition ?? null,
        content_id: data.contentId ? data.contentId.replace(/^<|>$/g, '') : null,
        size: 0,
        key,
      };
      out.attachments.push(row);
      stored.push(
        ctx.storage
          .put(key, data.content as Readable, { contentType: data.contentType })
          .then(({ size }) => {
            row.size = size;
          })
          .finally(() => data.release()),
      );
    });
    parser.on('error', fail);
    parser.on('end', () => {
      Promise.all(stored).then(() => resolve(out), reject);
    });
    raw.on('error', fail);
    raw.pipe(parser);
  });
}

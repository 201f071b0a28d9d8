// The console's Inbound page (docs/console.md §2 "Inbound"): received mail (docs/receiving.md) for the
// signed-in account, a searchable list and one message with its headers, text, sanitised HTML,
// attachments and raw message as signed links, and its SPF/DKIM/DMARC verdicts. Session calls.
import { z } from '@hono/zod-openapi';
import { operationsOf, pageMeta, pageOf, uuidId } from './common.ts';
import { pageField, textField } from './fields.ts';
import { transactionWire } from './reports.ts';
import { logEntry } from './webhooks.ts';

const inboundOperation = operationsOf({ tag: 'Inbound', access: 'session' });

/** What the search box matches: a piece of From, To (or the envelope recipients) or Subject. */
const SEARCH_MAX = 320;

const authentication = z
  .object({
    spf: z.string(),
    dkim: z.string(),
    dmarc: z.string(),
    flagged: z.boolean().openapi({ description: 'It failed DMARC under a `reject` policy and was kept.' }),
  })
  .openapi({ description: 'The RFC 8601 results of the checks on arrival (pass, fail, softfail, none, …).' });

const inboundRow = z.object({
  id: z.string().openapi({ description: 'The received message’s id (a uuid).' }),
  from: z.string().openapi({ description: 'The From header’s first mailbox, `Name <address>`.' }),
  to: z.array(z.string()),
  received_for: z.array(z.string()).openapi({ description: 'The envelope recipients it was delivered to here.' }),
  subject: z.string(),
  received_at: z.string().openapi({ description: 'When it was received, ISO 8601 (UTC).' }),
  authentication,
  attachment_count: z.number().int(),
  in_reply_to_email_id: z
    .string()
    .nullable()
    .openapi({ description: 'The uuid of the transaction sent through this service that it answers.' }),
});

const inboundPageMeta = pageMeta.extend({ total_capped: z.boolean() });

export const inboundSearchBody = z.strictObject({
  page: pageField,
  search: textField(SEARCH_MAX),
});

const link = { download_url: z.string(), expires_at: z.string() };

const inboundMessage = inboundRow.extend({
  cc: z.array(z.string()),
  reply_to: z.array(z.string()),
  envelope_from: z.string().openapi({ description: 'MAIL FROM (empty for a bounce).' }),
  remote_ip: z.string().nullable(),
  helo: z.string().nullable(),
  message_id: z.string().nullable(),
  sent_at: z.string().nullable().openapi({ description: 'Its Date header, ISO 8601, when it had a valid one.' }),
  text: z.string().nullable(),
  html: z
    .string()
    .nullable()
    .openapi({
      description:
        'The HTML part sanitised: no script, handler, form, frame or remote reference (remote images are dropped ' +
        'and counted in `remote_content_blocked`). Shown in a sandboxed frame whose CSP forbids scripts too.',
    }),
  remote_content_blocked: z.number().int(),
  headers: z.array(z.object({ name: z.string(), value: z.string() })).openapi({
    description: 'Every header in order, as written (unfolded), at most the first 500.',
  }),
  attachments: z.array(
    z.object({
      id: z.string(),
      filename: z.string().nullable(),
      content_type: z.string(),
      content_disposition: z.string().nullable(),
      size: z.number().int(),
      ...link,
    }),
  ),
  raw: z.object({ ...link, size: z.number().int() }).openapi({
    description: 'The message as received, with our Authentication-Results on top (links are signed, one hour).',
  }),
  in_reply_to: transactionWire.nullable().openapi({
    description: 'The transaction it answers, as the transaction tables show it (its More Info), or null.',
  }),
});

export const searchInbound = inboundOperation('POST /v1/inbound/search', {
  summary: 'Search received mail',
  description:
    'One page (10) of the account’s received mail, newest first; `search` matches a piece of From, To (or the ' +
    'envelope recipients) or Subject, any case. The total stops counting past 1,000 (`total_capped`).',
  body: inboundSearchBody,
  bodyExample: { page: 1, search: 'invoice' },
  success: [{ status: 200, description: 'One page of received mail.', schema: pageOf(inboundRow, inboundPageMeta) }],
});

export const getInbound = inboundOperation('GET /v1/inbound/{id}', {
  summary: 'Read a received message',
  description:
    'Its fields, headers, text, sanitised HTML, attachments and raw message (signed download links, valid one ' +
    'hour), the SPF/DKIM/DMARC verdicts, and the transaction it answers. A malformed, unknown or another ' +
    'account’s id answers 404.',
  params: z.object({
    id: uuidId('The received message’s id; anything but a uuid answers 404.', '0b5f8c64-2f7e-4a47-9c55-1d1e2b6c7a10'),
  }),
  success: [{ status: 200, description: 'The message.', schema: inboundMessage }],
  errors: ['not_found'],
});

export const getInboundWebhookRequests = inboundOperation('GET /v1/inbound/{id}/webhook-requests', {
  summary: 'A received message’s webhook requests',
  description:
    'The requests its `email.received` event made, one per webhook it was queued for, oldest first, as Webhook ' +
    'Logs shows them (status, attempts, the last HTTP status). POST /v1/webhook-logs/{id}/replay sends one again. ' +
    'A malformed, unknown or another account’s id answers 404.',
  params: z.object({
    id: uuidId('The received message’s id; anything but a uuid answers 404.', '0b5f8c64-2f7e-4a47-9c55-1d1e2b6c7a10'),
  }),
  success: [{ status: 200, description: 'Its requests, if any.', schema: z.object({ data: z.array(logEntry) }) }],
  errors: ['not_found'],
});

export type InboundRowWire = z.infer<typeof inboundRow>;
export type InboundMessageWire = z.infer<typeof inboundMessage>;

export const inboundOperations = [searchInbound, getInbound, getInboundWebhookRequests];

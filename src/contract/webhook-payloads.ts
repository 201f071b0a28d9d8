// What the account's webhook receives (docs/webhooks.md), as OpenAPI `webhooks`: one entry per
// event type, each with the `standard` and the `legacy` field sets and the signature headers.
import { z } from '@hono/zod-openapi';
import { ANSWER_CATEGORIES, MACHINE_RULE_IDS, UNSUBSCRIBE_CHANNELS, type WebhookEventType } from './values.ts';

// What happened on the wire with direct MX delivery; null through SMTP_RELAY_URL
const WIRE_FIELDS = {
  mx_host: z.string().nullable().openapi({ description: 'The MX host that answered (direct delivery).' }),
  mx_address: z.string().nullable().openapi({ description: 'The IP address of that host.' }),
  tls_version: z
    .string()
    .nullable()
    .openapi({ description: 'The TLS version of the connection, e.g. TLSv1.3; null without TLS.' }),
  tls_cipher: z.string().nullable().openapi({ description: 'The TLS cipher; null without TLS.' }),
  mta_sts: z
    .string()
    .nullable()
    .openapi({ description: 'The MTA-STS mode that applied (RFC 8461): enforce or testing; null without a policy.' }),
};

// What the remote server's answer was about (the one classifier of src/server/delivery/remote-answer.ts)
const category = z
  .enum(ANSWER_CATEGORIES)
  .nullable()
  .openapi({
    description:
      'What the remote server’s answer was about: invalid_recipient (the only one that suppresses the address), ' +
      'policy_block, spam_block, authentication, mailbox_full, mailbox_disabled, message_too_large, routing, ' +
      'system, protocol, transient or unknown; null when no server’s answer decided it (suppressed, over quota).',
    example: 'policy_block',
  });

// Who opened or clicked: a person, or a machine (src/server/tracking/machine-rules.ts)
const MACHINE_FIELDS = {
  machine: z.boolean().openapi({
    description:
      'True when a machine made it — a mail privacy proxy fetching images at delivery, a link scanner — and ' +
      'false for a person’s. Machines’ opens and clicks count in no read or click figure.',
  }),
  machine_rule: z
    .enum(MACHINE_RULE_IDS)
    .nullable()
    .openapi({ description: 'The rule that told a machine’s apart (docs/webhooks.md); null for a person’s.' }),
};

const OWN_FIELDS: Record<WebhookEventType | 'test', Record<string, z.ZodType>> = {
  sent: {
    smtp_reply: z.string().nullable().openapi({ description: 'The receiving server’s answer.' }),
    ...WIRE_FIELDS,
  },
  delayed: {
    smtp_reply: z.string().nullable().openapi({ description: 'The receiving server’s answer that deferred it.' }),
    attempt: z.number().int().nullable().openapi({ description: 'The delivery attempt that was deferred.' }),
    next_attempt_at: z
      .string()
      .nullable()
      .openapi({ description: 'When the next attempt is due, ISO 8601 UTC.', example: '2026-11-23T15:05:05.000Z' }),
    category,
    ...WIRE_FIELDS,
  },
  failed: {
    smtp_reply: z.string().nullable().openapi({ description: 'The last answer, or why it was not sent.' }),
    bounce_type: z.enum(['soft']).nullable(),
    category,
    ...WIRE_FIELDS,
  },
  bounce: {
    bounce_type: z.enum(['hard', 'soft']).nullable(),
    bounce_reason: z.string().nullable(),
    smtp_status: z.string().nullable().openapi({ description: 'From a bounce report, e.g. 5.1.1.' }),
    category,
  },
  complaint: {
    feedback_type: z
      .string()
      .nullable()
      .openapi({
        description:
          'The report’s Feedback-Type (RFC 5965 §3.1): abuse, fraud, virus or other, the types that say the ' +
          'recipient did not want the message.',
        example: 'abuse',
      }),
    user_agent: z
      .string()
      .nullable()
      .openapi({
        description:
          'The report’s User-Agent: the feedback loop, the mailbox provider’s system, that sent it; null when the ' +
          'report names none.',
        example: 'Yahoo!-Mail-Feedback/2.0',
      }),
    arrival_date: z
      .string()
      .nullable()
      .openapi({
        description:
          'The report’s Arrival-Date (Received-Date in older reports): when the provider received the message ' +
          'reported, ISO 8601 UTC; null when the report gives none. created_at is when the report reached us.',
      }),
  },
  open: { user_agent: z.string().nullable(), ip: z.string().nullable(), ...MACHINE_FIELDS },
  click: {
    url: z.string().nullable(),
    user_agent: z.string().nullable(),
    ip: z.string().nullable(),
    ...MACHINE_FIELDS,
  },
  unsubscribe: { via: z.enum(UNSUBSCRIBE_CHANNELS).nullable() },
  resubscribe: { via: z.enum(UNSUBSCRIBE_CHANNELS).nullable() },
  test: {},
};

const WHEN: Record<keyof typeof OWN_FIELDS, string> = {
  sent: 'The recipient’s server accepted the message.',
  delayed:
    'The recipient’s server deferred the message (a 4xx answer, or none): sent once, at its first deferral, with ' +
    'the time of the next attempt. A later sent, bounce or failed says how it ended.',
  failed: 'Not sent: suppressed, over quota, or given up after retries (soft bounce).',
  bounce: 'Refused for good at delivery (hard when the address does not exist, else soft), or a bounce report.',
  complaint: 'The recipient marked the message as spam: a feedback loop’s report (RFC 5965) about it was received.',
  open: 'The tracking pixel was loaded (by a person, or a machine: see `machine`).',
  click: 'A tracked link was followed (by a person, or a machine: see `machine`).',
  unsubscribe: 'The recipient unsubscribed (page, one-click, mailto, or a feedback loop’s unsubscribe report).',
  resubscribe: 'The recipient subscribed again.',
  test: 'Send test event, from the Webhook modal or POST /v1/webhooks/test.',
};

const address = z.object({ email: z.string(), name: z.string().nullable() });

function standard(type: keyof typeof OWN_FIELDS) {
  const data =
    type === 'test'
      ? z.object({ message: z.string() })
      : z.object({
          transaction_id: z.string(),
          message_id: z.string(),
          group: z.object({ uuid: z.string(), name: z.string() }),
          from: address,
          to: address,
          subject: z.string(),
          tags: z.array(z.string()).nullable(),
          metadata: z.record(z.string(), z.unknown()).nullable(),
          ...OWN_FIELDS[type],
        });
  return z.object({
    type: z.literal(`email.${type}`),
    created_at: z.string().openapi({ description: 'When the event happened, ISO 8601 UTC.' }),
    data,
  });
}

function legacy(type: keyof typeof OWN_FIELDS) {
  const common =
    type === 'test'
      ? { message: z.string() }
      : {
          trans_uuid: z.string(),
          message_id: z.string(),
          trans_group_uuid: z.string(),
          trans_group_name: z.string(),
          tm_from_email: z.string(),
          tm_from_name: z.string().nullable(),
          trans_to_email: z.string(),
          trans_to_name: z.string().nullable(),
          tm_subject: z.string(),
          tags: z.string().nullable().openapi({ description: 'Comma-separated.' }),
          metadata: z.string().nullable().openapi({ description: 'JSON text.' }),
          ...OWN_FIELDS[type],
        };
  return z.object({
    event: z.literal(type),
    timestamp: z.number().int().openapi({ description: 'Unix seconds.' }),
    ...common,
  });
}

const signatureHeaders = z.object({
  'webhook-id': z.string().openapi({
    description: 'The same for every retry and replay of one event: drop repeats by it.',
    example: 'msg_2b7f0c',
  }),
  'webhook-timestamp': z.string().openapi({ description: 'Unix seconds of this attempt.', example: '1795446245' }),
  'webhook-signature': z.string().openapi({
    description:
      '`v1,` + base64(HMAC-SHA256(key, "{webhook-id}.{webhook-timestamp}.{body}")), the key being the signing secret ' +
      'after its `whsec_` prefix, base64-decoded (Standard Webhooks). For GET and DELETE the signed text is the ' +
      'query string added. Verify with a Standard Webhooks ' +
      'library: `new Webhook(secret).verify(rawBody, headers)`.',
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  }),
});

// Example payloads (docs/webhooks.md "Payloads") of one message, ann@example.com's order: the common
// fields once per field set, each example adding its event's own. tests/unit/webhook-payloads.test.ts
// checks each against its schema and against what the server builds from the same event.
const EXAMPLE_STANDARD_DATA = {
  transaction_id: '5f0c1d2e-8a3b-4c6d-9e7f-0a1b2c3d4e5f',
  message_id: '<5f0c1d2e-8a3b-4c6d-9e7f-0a1b2c3d4e5f@shop.example>',
  group: { uuid: '0b6f3c1e-2d4a-4e8b-9c7d-1a2b3c4d5e6f', name: 'Orders' },
  from: { email: 'orders@shop.example', name: 'Shop' },
  to: { email: 'ann@example.com', name: null },
  subject: 'Your order',
  tags: ['order'],
  metadata: { order: 42 },
};
const EXAMPLE_LEGACY_FIELDS = {
  trans_uuid: '5f0c1d2e-8a3b-4c6d-9e7f-0a1b2c3d4e5f',
  message_id: '<5f0c1d2e-8a3b-4c6d-9e7f-0a1b2c3d4e5f@shop.example>',
  trans_group_uuid: '0b6f3c1e-2d4a-4e8b-9c7d-1a2b3c4d5e6f',
  trans_group_name: 'Orders',
  tm_from_email: 'orders@shop.example',
  tm_from_name: 'Shop',
  trans_to_email: 'ann@example.com',
  trans_to_name: null,
  tm_subject: 'Your order',
  tags: 'order',
  metadata: '{"order":42}',
};

/** The event of each example: when it happened and its own fields, the same in both field sets. */
const EXAMPLE_EVENTS: Partial<Record<WebhookEventType, { at: string; fields: Record<string, unknown> }>> = {
  delayed: {
    at: '2026-11-23T15:04:05.000Z',
    fields: {
      smtp_reply: '451 4.7.1 Greylisted, please try again later',
      attempt: 1,
      next_attempt_at: '2026-11-23T15:05:05.000Z',
      category: 'transient',
      mx_host: 'mx1.example.com',
      mx_address: '192.0.2.3',
      tls_version: 'TLSv1.3',
      tls_cipher: 'TLS_AES_256_GCM_SHA384',
      mta_sts: null,
    },
  },
  complaint: {
    at: '2026-11-24T08:12:30.000Z',
    fields: {
      feedback_type: 'abuse',
      user_agent: 'Yahoo!-Mail-Feedback/2.0',
      arrival_date: '2026-11-23T15:05:06.000Z',
    },
  },
};

/** The example payloads of an event type in both field sets (none for a type without an example). */
export function webhookExamples(type: WebhookEventType) {
  const event = EXAMPLE_EVENTS[type];
  if (!event) return undefined;
  return {
    standard: {
      summary: 'standard field set',
      value: { type: `email.${type}`, created_at: event.at, data: { ...EXAMPLE_STANDARD_DATA, ...event.fields } },
    },
    legacy: {
      summary: 'legacy field set',
      value: {
        event: type,
        timestamp: Math.floor(Date.parse(event.at) / 1000),
        ...EXAMPLE_LEGACY_FIELDS,
        ...event.fields,
      },
    },
  };
}

/** One OpenAPI webhook per event type: name, summary, payload schemas (either field set) and headers. */
export function webhookDefinitions() {
  return (Object.keys(OWN_FIELDS) as (keyof typeof OWN_FIELDS)[]).map((type) => ({
    name: type === 'test' ? 'email.test' : `email.${type}`,
    summary: WHEN[type],
    schema: z.union([standard(type).openapi(`WebhookStandard_${type}`), legacy(type).openapi(`WebhookLegacy_${type}`)]),
    examples: type === 'test' ? undefined : webhookExamples(type),
    headers: signatureHeaders,
  }));
}

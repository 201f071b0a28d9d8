// What the account's webhook receives (docs/webhooks.md), as OpenAPI `webhooks`: one entry per
// event type, each with the `standard` and the `legacy` field sets and the signature headers.
import { z } from '@hono/zod-openapi';
import { ANSWER_CATEGORIES, MACHINE_RULE_IDS, type WebhookEventType } from './values.ts';

// What happened on the wire with direct MX delivery (issue 22); null through SMTP_RELAY_URL
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
  open: { user_agent: z.string().nullable(), ip: z.string().nullable(), ...MACHINE_FIELDS },
  click: {
    url: z.string().nullable(),
    user_agent: z.string().nullable(),
    ip: z.string().nullable(),
    ...MACHINE_FIELDS,
  },
  unsubscribe: { via: z.enum(['page', 'one_click', 'mailto']).nullable() },
  resubscribe: { via: z.enum(['page', 'one_click', 'mailto']).nullable() },
  test: {},
};

const WHEN: Record<keyof typeof OWN_FIELDS, string> = {
  sent: 'The recipient’s server accepted the message.',
  failed: 'Not sent: suppressed, over quota, or given up after retries (soft bounce).',
  bounce: 'Refused for good at delivery (hard when the address does not exist, else soft), or a bounce report.',
  open: 'The tracking pixel was loaded (by a person, or a machine: see `machine`).',
  click: 'A tracked link was followed (by a person, or a machine: see `machine`).',
  unsubscribe: 'The recipient unsubscribed (page, one-click or mailto).',
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

/** One OpenAPI webhook per event type: name, summary, payload schemas (either field set) and headers. */
export function webhookDefinitions() {
  return (Object.keys(OWN_FIELDS) as (keyof typeof OWN_FIELDS)[]).map((type) => ({
    name: type === 'test' ? 'email.test' : `email.${type}`,
    summary: WHEN[type],
    schema: z.union([standard(type).openapi(`WebhookStandard_${type}`), legacy(type).openapi(`WebhookLegacy_${type}`)]),
    headers: signatureHeaders,
  }));
}

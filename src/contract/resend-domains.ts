// Sending domains on the Resend-compatible surface (/resend/domains): Resend's calls and shapes, so
// the `resend` SDK's `domains.*` work unchanged. The same domains, verification and DNS checks as
// the console's /v1/domains (docs/console.md §7, §8), which keeps its own shapes.
import { z } from '@hono/zod-openapi';
import { numericId, resendList, resendOperation, resendRef } from './common.ts';

/** Resend's names for a domain's state, from our verification by email (docs/console.md §2). */
export const RESEND_DOMAIN_STATUSES = ['not_started', 'pending', 'verified', 'failed'] as const;
/** Resend's names for a record's DNS check. */
const RECORD_STATUSES = ['not_started', 'verified', 'failed', 'temporary_failure'] as const;
/** Resend's regions: stored and answered as given (this service delivers from where it is installed). */
export const RESEND_REGIONS = ['us-east-1', 'eu-west-1', 'sa-east-1', 'ap-northeast-1'] as const;
export const DOMAIN_TLS = ['opportunistic', 'enforced'] as const;

const id = z.object({
  id: numericId.openapi({ description: 'The domain’s id; anything but digits answers 404.', example: '7' }),
});

const status = z.enum(RESEND_DOMAIN_STATUSES).openapi({
  description:
    '`verified` once the link mailed to an address at the domain was confirmed (mail is accepted from it only ' +
    'then); `pending` while that link is out; `failed` when it expired unconfirmed; `not_started` when none was ' +
    'mailed.',
});
const capability = z.enum(['enabled', 'disabled']);
const capabilities = z.object({ sending: capability, receiving: capability }).openapi({
  description: 'As given at creation or by an update (`sending` enabled, `receiving` disabled unless given).',
});
const tls = z.enum(DOMAIN_TLS).openapi({
  description:
    '`opportunistic` (default): STARTTLS whenever the receiving server offers it. `enforced`: the domain’s mail ' +
    'is delivered only over TLS with a certificate valid for the receiving host; a server without one is ' +
    'retried, then the message fails with the reason.',
});
const listed = {
  id: z.string().openapi({ description: 'The domain’s id (digits, as a string).' }),
  name: z.string().openapi({ description: 'The domain, lower-case.' }),
  status,
  created_at: z.string().openapi({ description: 'When it was added, ISO 8601.' }),
  region: z.enum(RESEND_REGIONS).openapi({ description: 'As given at creation (`us-east-1` unless given).' }),
  capabilities,
  open_tracking: z.boolean().openapi({
    description: 'Whether its mail gets the open pixel: its own choice, or the account’s Track Opens when unset.',
  }),
  click_tracking: z.boolean().openapi({
    description: 'Whether its mail’s links are tracked: its own choice, or the account’s Track Link Clicks.',
  }),
  tls,
  tracking_subdomain: z.string().optional().openapi({ description: 'As given; stored and answered only.' }),
};
export const resendListedDomain = z.object(listed);
export type ResendListedDomain = z.infer<typeof resendListedDomain>;

const record = z.object({
  record: z.enum(['SPF', 'DKIM', 'DMARC', 'ReturnPath', 'Receiving']),
  name: z.string().openapi({ description: 'The full name to publish it at.' }),
  type: z.enum(['TXT', 'CNAME', 'MX']),
  value: z.string(),
  priority: z.number().int().optional().openapi({ description: 'The MX record’s preference (Receiving).' }),
  ttl: z.literal('Auto'),
  status: z.enum(RECORD_STATUSES).openapi({
    description:
      'The last DNS check of the record: `not_started` before any, `temporary_failure` when the lookup itself ' +
      'failed (tried again at the next check).',
  }),
});
export const resendDomain = z.object({
  object: z.literal('domain'),
  ...listed,
  records: z.array(record).openapi({
    description: 'SPF, DKIM, DMARC and the return path: the records the console shows for the domain.',
  }),
});
export type ResendDomain = z.infer<typeof resendDomain>;
export type ResendDomainRecord = z.infer<typeof record>;

const listedExample: ResendListedDomain = {
  id: '7',
  name: 'example.com',
  status: 'pending',
  created_at: '2026-11-27T09:30:00.000Z',
  region: 'us-east-1',
  capabilities: { sending: 'enabled', receiving: 'disabled' },
  open_tracking: true,
  click_tracking: true,
  tls: 'opportunistic',
};
const example: ResendDomain = {
  object: 'domain',
  ...listedExample,
  records: [
    {
      record: 'SPF',
      name: 'example.com',
      type: 'TXT',
      value: 'v=spf1 include:_spf.transact.example ~all',
      ttl: 'Auto',
      status: 'not_started',
    },
    {
      record: 'DKIM',
      name: 'tx202611._domainkey.example.com',
      type: 'TXT',
      value: 'v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA…',
      ttl: 'Auto',
      status: 'not_started',
    },
    {
      record: 'DMARC',
      name: '_dmarc.example.com',
      type: 'TXT',
      value: 'v=DMARC1; p=none;',
      ttl: 'Auto',
      status: 'not_started',
    },
    {
      record: 'ReturnPath',
      name: 'bounces.example.com',
      type: 'CNAME',
      value: 'transact.example',
      ttl: 'Auto',
      status: 'not_started',
    },
  ],
};

export const resendListDomains = resendOperation('GET /resend/domains', {
  summary: 'List domains',
  description:
    'The account’s sending domains, newest first, all in one page (`has_more` is always false), whether added ' +
    'here or in the console.',
  sdkCall: 'resend.domains.list()',
  success: [resendList('Every domain of the account.', resendListedDomain, [listedExample])],
});

export const resendGetDomain = resendOperation('GET /resend/domains/{id}', {
  summary: 'Read a domain',
  description: 'One domain of the account with the DNS records to publish and the last check of each.',
  params: id,
  sdkCall: "resend.domains.get('7')",
  success: [{ status: 200, description: 'The domain.', schema: resendDomain, example }],
  errors: ['not_found'],
});

// a DNS label (RFC 1035 §2.3.1): what the return-path and tracking subdomains are named with
const label = z
  .string()
  .max(63)
  .regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/, 'must be one DNS label: letters, digits and inner dashes');
const givenCapabilities = z.strictObject({ sending: capability.optional(), receiving: capability.optional() });
const options = {
  open_tracking: z.boolean().nullable().optional().openapi({
    description: 'Add the open pixel to this domain’s mail; null or absent: the account’s Track Opens applies.',
  }),
  click_tracking: z.boolean().nullable().optional().openapi({
    description: 'Track this domain’s links; null or absent: the account’s Track Link Clicks applies.',
  }),
  tls: tls.optional(),
  capabilities: givenCapabilities.optional().openapi({ description: 'Stored and answered as given.' }),
  tracking_subdomain: label.optional().openapi({ description: 'Stored and answered only.' }),
};
/** The options a domain is created or updated with, as the contract reads them. */
export type ResendDomainOptions = { [K in keyof typeof options]?: z.infer<(typeof options)[K]> } & {
  region?: (typeof RESEND_REGIONS)[number];
  custom_return_path?: string;
};

export const resendCreateDomain = resendOperation('POST /resend/domains', {
  summary: 'Add a domain',
  description:
    'Adds the domain unverified, with its own DKIM key, and mails a confirmation link to `verification_email` ' +
    '(an address at the domain), or when none is given to `postmaster@<domain>` (the address every mail domain ' +
    'must have, RFC 5321 §4.5.1), as the console’s Add Domain does. Opening the link and pressing Confirm ' +
    'verifies the domain (single use, 48 h); until then mail from it is refused. A name that is not a domain, or ' +
    'is already in this account or verified by another, is refused (`validation_error`). `open_tracking` and ' +
    '`click_tracking` decide tracking for this domain’s mail (unset: the account’s Sending Options apply); ' +
    '`tls` `enforced` delivers its mail only over verified TLS; `custom_return_path` names the return-path ' +
    'record (`bounces` unless given); `region`, `capabilities` and `tracking_subdomain` are stored and answered.',
  body: z.strictObject({
    name: z.string().max(300).openapi({ description: 'The domain, e.g. `example.com`.' }),
    verification_email: z.string().max(400).optional().openapi({
      description: 'Where the confirmation link goes: an address at the domain; `postmaster@<domain>` if not given.',
    }),
    region: z.enum(RESEND_REGIONS).optional(),
    custom_return_path: label.optional().openapi({
      description: 'The subdomain of the return-path CNAME record, `<custom_return_path>.<domain>`.',
    }),
    ...options,
  }),
  bodyExamples: {
    postmaster: { summary: 'The link goes to postmaster@example.com', value: { name: 'example.com' } },
    named: {
      summary: 'The link goes to the address named',
      value: { name: 'example.com', verification_email: 'it@example.com' },
    },
    options: {
      summary: 'With its own options',
      value: {
        name: 'example.com',
        region: 'eu-west-1',
        custom_return_path: 'mail',
        open_tracking: false,
        click_tracking: true,
        tls: 'enforced',
        capabilities: { sending: 'enabled', receiving: 'disabled' },
        tracking_subdomain: 'links',
      },
    },
  },
  sdkCall: "resend.domains.create({ name: 'example.com', openTracking: false, tls: 'enforced' })",
  success: [{ status: 200, description: 'Added; the link is mailed.', schema: resendDomain, example }],
  errors: ['unprocessable'],
});

export const resendUpdateDomain = resendOperation('PATCH /resend/domains/{id}', {
  summary: 'Change a domain’s options',
  description:
    'Changes the options given and keeps the others: `open_tracking` and `click_tracking` (null: the account’s ' +
    'Sending Options apply again), `tls`, `capabilities` (merged into the stored ones) and `tracking_subdomain`. ' +
    'Tracking applies to mail delivered from then on, `tls` to every delivery attempt from then on.',
  params: id,
  body: z.strictObject(options),
  bodyExample: {
    open_tracking: false,
    click_tracking: true,
    tls: 'enforced',
    capabilities: { receiving: 'enabled' },
    tracking_subdomain: 'links',
  },
  sdkCall: "resend.domains.update({ id: '7', openTracking: false, clickTracking: true, tls: 'enforced' })",
  success: [resendRef('Changed.', 'domain', '7')],
  errors: ['not_found'],
});

export const resendVerifyDomain = resendOperation('POST /resend/domains/{id}/verify', {
  summary: 'Check a domain’s DNS records',
  description:
    'Looks the domain’s records up in DNS now (the console’s Check now) and stores each one’s result, read back ' +
    'by GET. The domain’s own `status` follows the confirmation link, not DNS.',
  params: id,
  sdkCall: "resend.domains.verify('7')",
  success: [resendRef('Checked.', 'domain', '7')],
  errors: ['not_found'],
});

export const resendRemoveDomain = resendOperation('DELETE /resend/domains/{id}', {
  summary: 'Remove a domain',
  description:
    'Removes the domain and its DKIM key; mail from it is refused from then on. Mail already sent stays readable ' +
    'with its history. While any message from the domain is still queued, retrying or scheduled, the removal is ' +
    'refused (`validation_error`, 422) and nothing changes: cancel the scheduled ones or wait until the queue ' +
    'has delivered or given up on the rest.',
  params: id,
  sdkCall: "resend.domains.remove('7')",
  success: [
    {
      status: 200,
      description: 'Removed.',
      schema: z.object({ object: z.literal('domain'), id: z.string(), deleted: z.literal(true) }),
      example: { object: 'domain', id: '7', deleted: true },
    },
  ],
  errors: ['not_found', 'unprocessable'],
});

export const resendDomainOperations = [
  resendListDomains,
  resendGetDomain,
  resendCreateDomain,
  resendUpdateDomain,
  resendVerifyDomain,
  resendRemoveDomain,
];

// The suppression list on the Resend-compatible surface (/resend/suppressions): Resend's calls and
// shapes, so the `resend` SDK's `suppressions.*` work unchanged. The same list as the console's
// Suppression List (docs/console-reports.md §2) and the one sending checks; its origins are named
// Resend's way (`manual` for the console's `user`; an unsubscribe, the recipient's own word, is a
// `complaint`).
import { z } from '@hono/zod-openapi';
import { resendList, resendOperation } from './common.ts';

/** Resend's origins of an entry. */
export const RESEND_SUPPRESSION_ORIGINS = ['bounce', 'complaint', 'manual'] as const;
export type ResendSuppressionOrigin = (typeof RESEND_SUPPRESSION_ORIGINS)[number];

/** Addresses or ids one batch call takes, as Resend's. */
const MAX_BATCH_SUPPRESSIONS = 100;

const origin = z.enum(RESEND_SUPPRESSION_ORIGINS).openapi({
  description:
    '`bounce`: a hard bounce listed it; `complaint`: the recipient marked a message as spam or unsubscribed; ' +
    '`manual`: added by the account (this API or the console).',
});

const listed = {
  object: z.literal('suppression'),
  id: z.string().openapi({ description: 'The entry’s id (a uuid).' }),
  email: z.string().openapi({ description: 'The address, as it was listed (matched in any case).' }),
  origin,
  source_id: z
    .string()
    .nullable()
    .openapi({
      description:
        'The id of the email whose bounce or complaint listed it (`emails.get` reads it back); null when added by ' +
        'hand.',
    }),
  created_at: z.string().openapi({ description: 'When it was listed, ISO 8601.' }),
};
export const resendSuppression = z.object(listed);
export type ResendSuppression = z.infer<typeof resendSuppression>;

const example: ResendSuppression = {
  object: 'suppression',
  id: 'e169aa45-1ecf-4183-9955-b1499d5701d3',
  email: 'gone@example.org',
  origin: 'bounce',
  source_id: '3f1c0d8e-6b1a-4c55-9a55-2f1f6ad1b7e4',
  created_at: '2026-11-27T09:30:00.000Z',
};

const ref = z.object({ object: z.literal('suppression'), id: z.string() });
const refExample = { object: 'suppression', id: example.id };
const removed = ref.extend({ deleted: z.literal(true) });
const removedExample = { ...refExample, deleted: true };

const idOrEmail = z.object({
  idOrEmail: z.string().openapi({
    description:
      'The entry’s id, or the address (URL-encoded; any case). Anything else, or an address not on the list, ' +
      'answers 404.',
    example: 'gone@example.org',
  }),
});

const address = z.string().max(320);

export const resendAddSuppression = resendOperation('POST /resend/suppressions', {
  summary: 'Suppress an address',
  description:
    'Puts the address on the list (origin `manual`): mail to it is not sent, in any case of its spelling, until it ' +
    'is removed. An address listed already answers its entry as it is. One that is not an address is refused ' +
    '(`validation_error`, 422).',
  body: z.strictObject({ email: address }),
  bodyExample: { email: 'gone@example.org' },
  sdkCall: "resend.suppressions.add({ email: 'gone@example.org' })",
  success: [{ status: 201, description: 'Listed.', schema: ref, example: refExample }],
  errors: ['unprocessable'],
});

export const resendListSuppressions = resendOperation('GET /resend/suppressions', {
  summary: 'List suppressions',
  description:
    'The account’s list, newest first, in cursor pages (`has_more` says whether another page follows in the ' +
    'direction asked; pass the last id as `after`, the first as `before`), of one origin when `origin` is given.',
  query: z
    .object({
      limit: z.coerce.number().int().min(1).max(100).default(20).openapi({ description: '1 to 100; 20 if not given.' }),
      after: z.string().max(100).optional().openapi({ description: 'The page after this entry (older ones).' }),
      before: z.string().max(100).optional().openapi({ description: 'The page before this entry (newer ones).' }),
      origin: origin.optional().openapi({ description: 'Only entries of this origin.' }),
    })
    .refine((q) => !(q.after && q.before), { message: 'give after or before, not both', path: ['before'] }),
  sdkCall: "resend.suppressions.list({ origin: 'bounce', limit: 20 })",
  success: [resendList('One page.', resendSuppression, [example])],
  errors: ['not_found'],
});

export const resendGetSuppression = resendOperation('GET /resend/suppressions/{idOrEmail}', {
  honoPath: '/resend/suppressions/:idOrEmail{.+}',
  summary: 'Read a suppression',
  description: 'One entry, by its id or its address; another account’s answers 404.',
  params: idOrEmail,
  sdkCall: "resend.suppressions.get('gone@example.org')",
  success: [{ status: 200, description: 'The entry.', schema: resendSuppression, example }],
  errors: ['not_found'],
});

export const resendRemoveSuppression = resendOperation('DELETE /resend/suppressions/{idOrEmail}', {
  honoPath: '/resend/suppressions/:idOrEmail{.+}',
  summary: 'Remove a suppression',
  description:
    'Takes the address off the list, in every spelling, whatever listed it: the next message to it is sent. ' +
    'By id or address; another account’s answers 404.',
  params: idOrEmail,
  sdkCall: "resend.suppressions.remove('gone@example.org')",
  success: [{ status: 200, description: 'Removed.', schema: removed, example: removedExample }],
  errors: ['not_found'],
});

export const resendAddSuppressions = resendOperation('POST /resend/suppressions/batch/add', {
  summary: 'Suppress addresses',
  description:
    `Up to ${MAX_BATCH_SUPPRESSIONS} addresses at once, as one add each, all or none (one that is not an address ` +
    'is refused with its index, 422); answers one entry per address, in order.',
  body: z.strictObject({ emails: z.array(address).min(1).max(MAX_BATCH_SUPPRESSIONS) }),
  bodyExample: { emails: ['gone@example.org', 'left@example.net'] },
  sdkCall: "resend.suppressions.batch.add({ emails: ['gone@example.org', 'left@example.net'] })",
  success: [
    {
      status: 201,
      description: 'Listed.',
      schema: z.object({ data: z.array(ref) }),
      example: { data: [refExample, { object: 'suppression', id: '520784e2-887d-4c25-b53c-4ad46ad38100' }] },
    },
  ],
  errors: ['unprocessable'],
});

export const resendRemoveSuppressions = resendOperation('POST /resend/suppressions/batch/remove', {
  summary: 'Remove suppressions',
  description:
    `Up to ${MAX_BATCH_SUPPRESSIONS} entries at once, by \`emails\` or by \`ids\` (one of the two), as one remove ` +
    'each; answers the entries removed (what was not on the list is left out).',
  body: z
    .strictObject({
      emails: z.array(address).min(1).max(MAX_BATCH_SUPPRESSIONS).optional(),
      ids: z.array(z.string().max(100)).min(1).max(MAX_BATCH_SUPPRESSIONS).optional(),
    })
    .refine((b) => (b.emails === undefined) !== (b.ids === undefined), {
      message: 'give emails or ids, one of the two',
      path: ['ids'],
    }),
  bodyExamples: {
    emails: { summary: 'By address', value: { emails: ['gone@example.org'] } },
    ids: { summary: 'By id', value: { ids: ['e169aa45-1ecf-4183-9955-b1499d5701d3'] } },
  },
  sdkCall: "resend.suppressions.batch.remove({ emails: ['gone@example.org'] })",
  success: [
    {
      status: 200,
      description: 'Removed.',
      schema: z.object({ data: z.array(removed) }),
      example: { data: [removedExample] },
    },
  ],
});

export const resendSuppressionOperations = [
  resendAddSuppression,
  resendListSuppressions,
  resendGetSuppression,
  resendRemoveSuppression,
  resendAddSuppressions,
  resendRemoveSuppressions,
];

// Templates on the Resend-compatible surface (/resend/templates): Resend's calls and shapes, so the
// `resend` SDK's `templates.*` work unchanged. The same templates as the console's library
// (/v1/templates, docs/features.md "Templates"): made here, they are listed and edited there, and
// the other way round. A change is saved as a draft; sends read the published version until Publish.
import { z } from '@hono/zod-openapi';
import { isUuid } from './fields.ts';
import { resendList, resendOperation, resendRef } from './common.ts';

/** Names Resend keeps for itself, refused as a variable's key. */
const RESERVED_KEYS = ['FIRST_NAME', 'LAST_NAME', 'EMAIL', 'UNSUBSCRIBE_URL', 'contact', 'this'];
const ALIAS = /^[A-Za-z0-9_.-]{1,100}$/;

/** A template named in a path: its uuid (lower-cased) or its alias; null for neither (answered 404). */
export function templateRef(raw: string): string | null {
  if (isUuid(raw)) return raw.toLowerCase();
  return ALIAS.test(raw) ? raw : null;
}

const id = z.object({
  id: z.string().max(300).openapi({
    description: 'The template’s id (a uuid) or its alias; anything else answers 404.',
    example: 'order-confirmation',
  }),
});

const key = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,49}$/, 'a key is letters, digits and _, not starting with a digit, at most 50')
  .refine((k) => !RESERVED_KEYS.includes(k), { message: `reserved: ${RESERVED_KEYS.join(', ')}` });
const variable = z.discriminatedUnion('type', [
  z.strictObject({ key, type: z.literal('string'), fallback_value: z.string().max(10_000).nullish() }),
  z.strictObject({ key, type: z.literal('number'), fallback_value: z.number().finite().nullish() }),
]);
const variables = z
  .array(variable)
  .max(50, 'at most 50 variables')
  .refine((list) => new Set(list.map((v) => v.key)).size === list.length, { message: 'each key once' })
  .openapi({
    description:
      'The variables the template reads as `{{{KEY}}}`: `type` `string` or `number`, and the `fallback_value` a ' +
      'send without the variable gets; one without a fallback must be given by every send.',
  });
const oneLine = (max: number) =>
  z
    .string()
    .max(max)
    .refine((v) => !/[\r\n]/.test(v), 'must not contain a line break');
const fields = {
  name: z.string().trim().min(1).max(200).openapi({ description: 'Its name in the console’s library.' }),
  alias: z.string().regex(ALIAS, 'use letters, digits, dot, dash and underscore, at most 100').nullish().openapi({
    description: 'A name of its own a send may use instead of the id; one template per alias in the account.',
  }),
  subject: oneLine(998).nullish(),
  html: z
    .string()
    .max(4 * 1024 * 1024)
    .openapi({ description: 'The HTML, with `{{{KEY}}}` where a variable goes (Handlebars).' }),
  text: z
    .string()
    .max(4 * 1024 * 1024)
    .nullish()
    .openapi({ description: 'The text part; made from the HTML when there is none.' }),
  from: oneLine(400).nullish().openapi({ description: '`email` or `Name <email>`, used when a send gives none.' }),
  reply_to: z
    .union([z.string().max(400), z.array(z.string().max(400)).max(1, 'a template keeps one reply-to address')])
    .nullish()
    .openapi({ description: 'One address (alone or in an array), used when a send gives none.' }),
  variables: variables.nullish(),
};
export const createTemplateBody = z.strictObject(fields);
export type CreateTemplateBody = z.infer<typeof createTemplateBody>;
export const updateTemplateBody = z.strictObject({
  ...fields,
  name: fields.name.optional(),
  html: fields.html.optional(),
});
export type UpdateTemplateBody = z.infer<typeof updateTemplateBody>;

const storedVariable = z.object({
  key: z.string(),
  type: z.enum(['string', 'number']),
  fallback_value: z.union([z.string(), z.number()]).nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
const listed = {
  id: z.string().openapi({ description: 'The template’s uuid.' }),
  name: z.string(),
  alias: z.string().nullable(),
  status: z.enum(['draft', 'published']).openapi({
    description: '`published` once published (sends may use it); `draft` until then.',
  }),
  published_at: z.string().nullable().openapi({ description: 'When it was last published, ISO 8601.' }),
  created_at: z.string(),
  updated_at: z.string(),
};
export const resendListedTemplate = z.object(listed);
export type ResendListedTemplate = z.infer<typeof resendListedTemplate>;
export const resendTemplate = z.object({
  object: z.literal('template'),
  ...listed,
  current_version_id: z.string().openapi({ description: 'Names the version shown; it changes with every save.' }),
  subject: z.string().nullable(),
  html: z.string(),
  text: z.string().nullable(),
  from: z.string().nullable(),
  reply_to: z.array(z.string()).nullable(),
  variables: z.array(storedVariable).nullable().openapi({ description: 'Its declared variables; null for none.' }),
  has_unpublished_versions: z.boolean().openapi({
    description: 'The fields shown are not what sends use yet: saved since the last publish, or never published.',
  }),
});
export type ResendTemplate = z.infer<typeof resendTemplate>;

const ID = '0d9f6c2e-1b7a-4d8e-9f10-3c2b1a0e9d8c';
const listedExample: ResendListedTemplate = {
  id: ID,
  name: 'Order confirmation',
  alias: 'order-confirmation',
  status: 'published',
  published_at: '2026-11-28T09:30:00.000Z',
  created_at: '2026-11-28T09:00:00.000Z',
  updated_at: '2026-11-28T09:30:00.000Z',
};
const example: ResendTemplate = {
  object: 'template',
  ...listedExample,
  current_version_id: '5b0e2c1a-7d3f-8e4b-9a6c-1f2e3d4c5b6a',
  subject: 'Your order of {{{PRODUCT}}}',
  html: '<p>{{{PRODUCT}}}: {{{PRICE}}}</p>',
  text: null,
  from: 'Shop <orders@example.com>',
  reply_to: null,
  variables: [
    {
      key: 'PRODUCT',
      type: 'string',
      fallback_value: 'your item',
      created_at: '2026-11-28T09:00:00.000Z',
      updated_at: '2026-11-28T09:00:00.000Z',
    },
    {
      key: 'PRICE',
      type: 'number',
      fallback_value: null,
      created_at: '2026-11-28T09:00:00.000Z',
      updated_at: '2026-11-28T09:00:00.000Z',
    },
  ],
  has_unpublished_versions: false,
};
const ref = (description: string) => resendRef(description, 'template', ID);

export const resendCreateTemplate = resendOperation('POST /resend/templates', {
  summary: 'Create a template',
  description:
    'Saves a draft template in the account’s library (the console lists it and can edit it). Variables go in as ' +
    '`{{{KEY}}}` and are declared in `variables`; `from`, `reply_to` and `subject` are used by a send that gives ' +
    'none. Publish it before sending with it. An alias another template of the account has is refused ' +
    '(`validation_error`, 422).',
  body: createTemplateBody,
  bodyExample: {
    name: 'Order confirmation',
    alias: 'order-confirmation',
    from: 'Shop <orders@example.com>',
    reply_to: 'help@example.com',
    subject: 'Your order of {{{PRODUCT}}}',
    html: '<p>{{{PRODUCT}}}: {{{PRICE}}}</p>',
    text: '{{{PRODUCT}}}: {{{PRICE}}}',
    variables: [
      { key: 'PRODUCT', type: 'string', fallback_value: 'your item' },
      { key: 'PRICE', type: 'number' },
    ],
  },
  sdkCall:
    "resend.templates.create({ name: 'Order confirmation', alias: 'order-confirmation', html: '<p>{{{PRICE}}}</p>' })",
  success: [ref('Saved as a draft.')],
  errors: ['unprocessable', 'payload_too_large'],
});

export const resendListTemplates = resendOperation('GET /resend/templates', {
  summary: 'List templates',
  description:
    'The account’s templates, newest first, in cursor pages: `has_more` says whether another page follows in the ' +
    'direction asked; pass the last `id` as `after` for the next, the first as `before` for the previous.',
  query: z
    .object({
      limit: z.coerce.number().int().min(1).max(100).default(20).openapi({ description: '1 to 100; 20 if not given.' }),
      after: z.string().max(300).optional().openapi({ description: 'The page after this template (older ones).' }),
      before: z.string().max(300).optional().openapi({ description: 'The page before this template (newer ones).' }),
    })
    .refine((q) => !(q.after && q.before), { message: 'give after or before, not both', path: ['before'] }),
  sdkCall: 'resend.templates.list({ limit: 20 })',
  success: [resendList('One page.', resendListedTemplate, [listedExample])],
  errors: ['not_found'],
});

export const resendGetTemplate = resendOperation('GET /resend/templates/{id}', {
  summary: 'Read a template',
  description:
    'One template of the account by id or alias, as last saved; `has_unpublished_versions` says whether that is ' +
    'what sends use yet.',
  params: id,
  sdkCall: "resend.templates.get('order-confirmation')",
  success: [{ status: 200, description: 'The template.', schema: resendTemplate, example }],
  errors: ['not_found'],
});

export const resendUpdateTemplate = resendOperation('PATCH /resend/templates/{id}', {
  summary: 'Change a template',
  description:
    'Saves the fields given (the others keep their value) as a draft: a published template keeps sending its ' +
    'published version, with `has_unpublished_versions` true, until it is published again.',
  params: id,
  body: updateTemplateBody,
  bodyExample: { subject: 'Thanks for ordering {{{PRODUCT}}}' },
  sdkCall: "resend.templates.update('order-confirmation', { subject: 'Thanks for ordering {{{PRODUCT}}}' })",
  success: [ref('Saved.')],
  errors: ['not_found', 'unprocessable', 'payload_too_large'],
});

export const resendPublishTemplate = resendOperation('POST /resend/templates/{id}/publish', {
  summary: 'Publish a template',
  description:
    'Makes the saved fields the version sends use (CSS inlined). Refused (`validation_error`, 422) when the ' +
    'HTML, text or subject does not compile, or the from address is not at a verified domain of the account.',
  params: id,
  sdkCall: "resend.templates.publish('order-confirmation')",
  success: [ref('Published.')],
  errors: ['not_found', 'unprocessable'],
});

export const resendDuplicateTemplate = resendOperation('POST /resend/templates/{id}/duplicate', {
  summary: 'Duplicate a template',
  description: 'A draft copy of the template as last saved, named “<name> (copy)”, without its alias.',
  params: id,
  sdkCall: "resend.templates.duplicate('order-confirmation')",
  success: [ref('The copy.')],
  errors: ['not_found'],
});

export const resendRemoveTemplate = resendOperation('DELETE /resend/templates/{id}', {
  summary: 'Delete a template',
  description: 'Deletes the template; mail already sent with it is unchanged.',
  params: id,
  sdkCall: "resend.templates.remove('order-confirmation')",
  success: [
    {
      status: 200,
      description: 'Deleted.',
      schema: z.object({ object: z.literal('template'), id: z.string(), deleted: z.literal(true) }),
      example: { object: 'template', id: ID, deleted: true },
    },
  ],
  errors: ['not_found'],
});

export const resendTemplateOperations = [
  resendCreateTemplate,
  resendListTemplates,
  resendGetTemplate,
  resendUpdateTemplate,
  resendPublishTemplate,
  resendDuplicateTemplate,
  resendRemoveTemplate,
];

// Named API keys (docs/architecture.md §7 "API keys"): created, listed, changed and deleted with a
// full_access key on the Resend-compatible surface (the SDK's resend.apiKeys.*), and created, listed
// and deleted by the console's Settings with the session. A key's token is answered once, at
// creation; lists never carry it.
import { z } from '@hono/zod-openapi';
import { operationsOf, resendList, resendOperation, resendPageQuery, resendRef, uuidId } from './common.ts';
import { API_KEY_PERMISSIONS } from './values.ts';

const settingsOperation = operationsOf({ tag: 'Settings', access: 'session' });

const permission = z.enum(API_KEY_PERMISSIONS).openapi({
  description: '`full_access`: every call the account’s key can make; `sending_access`: only the send calls.',
});

const keyName = z.string().trim().min(1, 'is required').max(50).openapi({ description: 'A name to tell keys apart.' });
/** A domain id as a number or digits (the SDK sends a string), parsed to a number. */
const domainId = z
  .union([
    z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
    z.string().regex(/^[1-9]\d{0,14}$/, 'is not a domain id'),
  ])
  .transform(Number);

export const createApiKeyBody = z.strictObject({
  name: keyName,
  permission: permission.optional().openapi({ description: '`full_access` when not given.' }),
  domain_id: domainId
    .nullable()
    .optional()
    .openapi({
      description:
        'A sending_access key sends only From this domain of the account (its id, as /v1/domains lists it); ' +
        'another account’s or an unknown id is 404.',
    }),
});

const created = z.object({
  id: z.string().openapi({ description: 'The key’s id (a uuid).' }),
  token: z.string().openapi({ description: 'The key itself (`tsn_…`): shown this once, never again.' }),
});
const createdExample = {
  id: 'b6d24b8e-af0b-4c3c-be0c-359bbd97381e',
  token: 'tsn_8Yq1bV3kq0a6s3H2rXJ0mB0pD4cW8fS1tN7uK2eL9gA',
};
const deleted = z.object({ object: z.literal('api_key'), id: z.string(), deleted: z.literal(true) });
const deletedExample = { object: 'api_key', id: createdExample.id, deleted: true };
const keyId = z.object({
  id: uuidId('The key’s id; anything but a uuid answers 404.', 'b6d24b8e-af0b-4c3c-be0c-359bbd97381e'),
});

const listedKey = z.object({
  id: z.string(),
  name: z.string(),
  permission,
  created_at: z.string().openapi({ description: 'ISO 8601.' }),
  last_used_at: z
    .string()
    .nullable()
    .openapi({ description: 'When it was last used, to the minute (ISO 8601); null if never.' }),
});
const listedExample = {
  id: createdExample.id,
  name: 'Production',
  permission: 'sending_access' as const,
  created_at: '2026-11-27T09:30:00.000Z',
  last_used_at: null,
};

const sdkBody = { name: 'Production', permission: 'sending_access', domain_id: '7' };
const refusedKey = 'A sending_access key is refused (`restricted_api_key`, 403).';

export const resendCreateApiKey = resendOperation('POST /resend/api-keys', {
  summary: 'Create an API key',
  description:
    `A named key beside the account’s: \`name\`, \`permission\` and, for \`sending_access\`, a \`domain_id\` it ` +
    `may send from. The answer holds the token, the only time it is shown. ${refusedKey}`,
  body: createApiKeyBody,
  bodyExample: sdkBody,
  sdkCall: "resend.apiKeys.create({ name: 'Production', permission: 'sending_access', domain_id: '7' })",
  success: [{ status: 201, description: 'Created.', schema: created, example: createdExample }],
  errors: ['not_found', 'unprocessable'],
});

export const resendListApiKeys = resendOperation('GET /resend/api-keys', {
  summary: 'List API keys',
  description:
    'The account’s named keys, newest first, in cursor pages (`limit`, `after`, `before`, `has_more`, as ' +
    `GET /resend/emails); never a token. ${refusedKey}`,
  query: resendPageQuery('key'),
  sdkCall: 'resend.apiKeys.list({ limit: 20 })',
  success: [resendList('One page of keys.', listedKey, [listedExample])],
  errors: ['not_found'],
});

export const updateApiKeyBody = z
  .strictObject({
    name: keyName.optional(),
    permission: permission.optional(),
    domain_id: domainId
      .nullable()
      .optional()
      .openapi({
        description:
          'The only From domain of a sending_access key (its id), or null for any; a key made full_access loses ' +
          'its domain.',
      }),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'give name, permission or domain_id' });

export const resendUpdateApiKey = resendOperation('PATCH /resend/api-keys/{id}', {
  summary: 'Change an API key',
  description:
    'Renames a key, or changes its permission or the domain a sending_access key may send from; the token stays ' +
    'the same and the change holds at once, over HTTP and SMTP. A domain on a full_access key is refused ' +
    `(\`validation_error\`). ${refusedKey}`,
  params: keyId,
  body: updateApiKeyBody,
  bodyExample: { name: 'Production (shop)' },
  sdkCall: "resend.apiKeys.update('b6d24b8e-af0b-4c3c-be0c-359bbd97381e', { name: 'Production (shop)' })",
  success: [resendRef('Changed.', 'api_key', createdExample.id)],
  errors: ['not_found'],
});

export const resendDeleteApiKey = resendOperation('DELETE /resend/api-keys/{id}', {
  summary: 'Delete an API key',
  description: `The key is refused from now on, over HTTP and SMTP. ${refusedKey}`,
  params: keyId,
  sdkCall: "resend.apiKeys.remove('b6d24b8e-af0b-4c3c-be0c-359bbd97381e')",
  success: [{ status: 200, description: 'Deleted.', schema: deleted, example: deletedExample }],
  errors: ['not_found'],
});

/** A key as the console lists it: Resend's fields, its domain and the token's first characters. */
const consoleKey = listedKey.extend({
  domain_id: z.number().int().nullable(),
  domain: z.string().nullable().openapi({ description: 'The only From domain a sending_access key may use.' }),
  token_prefix: z.string().openapi({ description: 'The token’s first characters, to tell keys apart.' }),
});

export const listApiKeys = settingsOperation('GET /v1/api-keys', {
  summary: 'List API keys',
  description: 'The account’s named API keys for Settings, newest first; never a token.',
  success: [
    {
      status: 200,
      description: 'The keys.',
      schema: z.object({ data: z.array(consoleKey) }),
      example: { data: [{ ...listedExample, domain_id: 7, domain: 'example.com', token_prefix: 'tsn_8Yq1bV' }] },
    },
  ],
  errors: ['forbidden'],
});

export const createApiKey = settingsOperation('POST /v1/api-keys', {
  summary: 'Create an API key',
  description:
    'Creates a named key from Settings (`name`, `permission`, `domain_id` for a sending_access key); the answer ' +
    'holds its token, the only time it is shown.',
  body: createApiKeyBody,
  bodyExample: { name: 'Production', permission: 'sending_access', domain_id: 7 },
  success: [{ status: 201, description: 'Created.', schema: created, example: createdExample }],
  errors: ['forbidden', 'not_found', 'unprocessable'],
});

export const deleteApiKey = settingsOperation('DELETE /v1/api-keys/{id}', {
  summary: 'Delete an API key',
  description: 'Deletes a named key from Settings; it is refused from now on, over HTTP and SMTP.',
  params: keyId,
  success: [{ status: 200, description: 'Deleted.', schema: deleted, example: deletedExample }],
  errors: ['forbidden', 'not_found'],
});

export const apiKeyOperations = [
  resendCreateApiKey,
  resendListApiKeys,
  resendUpdateApiKey,
  resendDeleteApiKey,
  listApiKeys,
  createApiKey,
  deleteApiKey,
];

// The OpenAPI 3.1 document made from the contract (GET /v1/openapi.json, the /docs/api page):
// every operation with its schemas, the security schemes, the webhook payloads, `servers` from
// PUBLIC_URL. Made once per process: the contract does not change while it runs.
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { codeSamples } from './code-samples.ts';
import { SECURITY_SCHEMES } from './common.ts';
import { operations } from './index.ts';
import { webhookDefinitions } from './webhook-payloads.ts';

const TAGS = [
  {
    name: 'Sending',
    description:
      'Mail in over HTTP with the account’s API key. SMTP submission takes the same messages (see the SMTP section ' +
      'of /docs/api).',
  },
  {
    name: 'Resend-compatible',
    description:
      'Resend’s calls in Resend’s shapes, so its SDK works unchanged with `RESEND_BASE_URL` set to this service’s ' +
      '/resend. /v1/emails and /v1/emails/batch stay for clients set up before /resend.',
  },
  { name: 'Templates', description: 'Handlebars templates the console edits and sends name by id or alias.' },
  {
    name: 'Tracked attachments',
    description:
      'Download links whose downloads are counted per recipient; with the API key an application makes one per ' +
      'message and sends it with `online_attachment_id`.',
  },
  { name: 'Reports', description: 'The console’s dashboard, transaction and group reports.' },
  { name: 'Exports', description: 'CSV exports of group reports.' },
  {
    name: 'Webhooks',
    description:
      'The account’s webhook, its signing secret and its logs. The requests it receives are under Webhooks below.',
  },
  { name: 'Suppression', description: 'Addresses mail is not sent to.' },
  {
    name: 'Inbound',
    description:
      'Mail received for the account’s domains: the console’s Inbound page, and the signed links that serve a ' +
      'received message and its attachments.',
  },
  { name: 'Settings', description: 'Sending options and credentials.' },
  { name: 'Domains', description: 'Sending domains, their verification and DNS records.' },
  { name: 'Sign-in', description: 'The console’s session.' },
  {
    name: 'Unsubscribe',
    description: 'The recipients’ unsubscribe page calls (no credentials: the link is the credential).',
  },
  { name: 'Reference', description: 'This document.' },
];

/** The OpenAPI 3.1 object the generator makes (openapi3-ts's OpenAPIObject). */
export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

const made = new Map<string, OpenApiDocument>();
const texts = new Map<string, string>();

/** The document as an object, for `publicUrl` (made once per address; do not change it). */
export function openApiDocument(publicUrl: string): OpenApiDocument {
  let document = made.get(publicUrl);
  if (!document) {
    document = makeDocument(publicUrl);
    made.set(publicUrl, document);
  }
  return document;
}

function makeDocument(publicUrl: string): OpenApiDocument {
  const registry = new OpenAPIRegistry();
  for (const [name, scheme] of Object.entries(SECURITY_SCHEMES))
    registry.registerComponent('securitySchemes', name, scheme);
  for (const op of operations) registry.registerPath(op.route);
  for (const hook of webhookDefinitions()) {
    registry.registerWebhook({
      method: 'post',
      path: hook.name,
      summary: hook.name,
      description:
        `${hook.summary} Sent with the webhook’s verb: POST, PUT and PATCH carry it as the JSON body; GET ` +
        `and DELETE in the query string (nested keys joined with dots). Either field set, as the webhook is ` +
        `configured. Any 2xx within 10 s is success; anything else is retried for about three days, and 410 ` +
        `disables the webhook.`,
      tags: ['Webhooks'],
      request: {
        headers: hook.headers,
        body: { content: { 'application/json': { schema: hook.schema, examples: hook.examples } } },
      },
      responses: {
        200: { description: 'Received (any 2xx).' },
        410: { description: 'Gone: the webhook is disabled.' },
      },
    });
  }
  const generator = new OpenApiGeneratorV31(registry.definitions);
  const baseUrl = publicUrl.replace(/\/+$/, '');
  const document = generator.generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Transact API',
      version: '1',
      description:
        'Transactional email over HTTP and SMTP, and the calls the console makes. Errors are always `{ "error": { ' +
        '"code", "message", "details"? } }` with a 4xx or 5xx status; `code` is stable, `message` is for people.',
    },
    servers: [{ url: baseUrl, description: 'This installation (PUBLIC_URL).' }],
    tags: TAGS,
  });
  const paths = document.paths as Record<string, Record<string, Record<string, unknown>>>;
  for (const op of operations) {
    const security = (op.route.security ?? []).flatMap((s) => Object.keys(s));
    paths[op.path][op.method]['x-codeSamples'] = codeSamples({
      method: op.method,
      path: op.path,
      baseUrl,
      security,
      body: op.bodyExample,
      form: op.form?.example,
      sdkCall: op.sdkCall,
    });
  }
  return document;
}

/** The document as JSON text, made on first use. */
export function openApiText(publicUrl: string): string {
  let text = texts.get(publicUrl);
  if (text === undefined) {
    text = JSON.stringify(openApiDocument(publicUrl));
    texts.set(publicUrl, text);
  }
  return text;
}

// The template and tracked-attachment calls of the contract (docs/console-reports.md §7 "Templates" and
// "Tracked attachments"): search, one template, save, delete, live preview; download links with
// their files and the download page's branding.
import { z } from '@hono/zod-openapi';
import { messageAnswer, numericId, operationsOf, pageOf, uuidId } from './common.ts';
import { ATTACHMENT_PAGE_SIZE } from './values.ts';

const SORTS = ['name', 'description', 'published', 'updated'] as const;
export type TemplateSortParam = (typeof SORTS)[number] | `-${(typeof SORTS)[number]}`;
export const DEFAULT_TEMPLATE_SORT: TemplateSortParam = '-description';
// "name" ascending, "-name" descending; or only a direction, "ASC" or "DESC" in any case, on the
// default key (docs/console-reports.md §9: "sorted by description, DESC" by default)
const sortParam = z.union([
  z.enum([...SORTS, ...SORTS.map((s) => `-${s}` as const)]),
  z
    .string()
    .regex(
      /^(asc|desc)$/i,
      'a key (name, description, published, updated; "-" before it for descending), or ASC or DESC',
    )
    .transform((dir): TemplateSortParam => (dir.toLowerCase() === 'asc' ? 'description' : '-description')),
]);

export const templateSearchBody = z.union([
  z.strictObject({
    template_name: z.string().max(200).nullish(),
    sort: sortParam.nullish(),
    page: z.number().int().min(1).max(100_000).default(1),
  }),
  z.strictObject({
    templateName: z.string().max(200).nullish(),
    templateType: z.enum(['user', 'system']),
    templateStatus: z.enum(['published', 'draft']).nullish(),
    sort: sortParam.nullish(),
    page: z.number().int().min(1).max(100_000).default(1),
  }),
]);

const text = (max: number) => z.string().max(max).nullish();
export const templateBody = z.strictObject({
  // the editor sends back what it loaded; these are the server's own and ignored
  id: z.string().optional(),
  type: z.string().optional(),
  created_timestamp: z.string().optional(),
  updated_timestamp: z.string().optional(),
  published_timestamp: z.string().nullish(),
  unpublished_changes: z.boolean().optional(),
  name: text(200),
  status: z.enum(['draft', 'published']).optional(),
  alias: z
    .string()
    .max(100)
    .regex(/^[A-Za-z0-9_.-]+$/, 'use letters, digits, dot, dash and underscore')
    .nullish(),
  from_name: text(200).refine((v) => !v || !/[\r\n]/.test(v), 'must not contain a line break'),
  from_email: text(320),
  reply_email: text(320),
  subject: text(998).refine((v) => !v || !/[\r\n]/.test(v), 'must not contain a line break'),
  description: text(1000),
  // the byte limit (413) is the service's; this only bounds what is parsed at all
  content_html: z
    .string()
    .max(4 * 1024 * 1024)
    .nullish(),
  content_text: z
    .string()
    .max(4 * 1024 * 1024)
    .nullish(),
});

export const renderBody = z.strictObject({
  subject: text(998),
  content_html: z.string().max(4 * 1024 * 1024),
  content_text: text(4 * 1024 * 1024),
  variables: z.record(z.string(), z.unknown(), { error: 'variables must be an object' }).default({}),
});

const template = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(['draft', 'published']),
  type: z.enum(['user', 'system']),
  alias: z.string().nullable(),
  from_name: z.string().nullable(),
  from_email: z.string().nullable(),
  reply_email: z.string().nullable(),
  subject: z.string().nullable(),
  description: z.string().nullable(),
  content_html: z.string(),
  content_text: z.string().nullable(),
  created_timestamp: z.string(),
  updated_timestamp: z.string(),
  published_timestamp: z.string().nullable(),
  unpublished_changes: z
    .boolean()
    .openapi({ description: 'Published, and saved since: sends still use the published version.' }),
});
const templateParams = z.object({
  id: uuidId('The template uuid; anything else answers 404.', '0d9f6c2e-1b7a-4d8e-9f10-3c2b1a0e9d8c'),
});
const saved = z.object({ template, message: z.string() });
const templateOperation = operationsOf({ tag: 'Templates', access: 'session' });

export const searchTemplates = templateOperation('POST /v1/templates/search', {
  summary: 'Search templates',
  description:
    'One page of templates by name: the account’s own ({template_name, sort, page}) or, for the Select Template ' +
    'page, the system gallery or the account’s by status ({templateName, templateType, templateStatus}). Sort by ' +
    'name, description, published or updated, `-` first for descending; or only `ASC`/`DESC` on the description.',
  body: templateSearchBody,
  bodyExample: { template_name: 'receipt', sort: '-updated', page: 1 },
  success: [
    {
      status: 200,
      description: 'One page of templates.',
      schema: pageOf(template),
    },
  ],
  errors: ['forbidden'],
});

export const renderTemplate = templateOperation('POST /v1/templates/render', {
  summary: 'Preview a template',
  description:
    'Renders a subject, HTML and text with sample variables, as a send would; answers the variables the template uses.',
  body: renderBody,
  bodyExample: { subject: 'Hello {{name}}', content_html: '<p>Hi {{name}}</p>', variables: { name: 'Ada' } },
  success: [
    {
      status: 200,
      description: 'The rendered parts.',
      schema: z.object({
        subject: z.string().nullable(),
        html: z.string(),
        text: z.string(),
        variables: z.array(z.string()),
      }),
    },
  ],
  errors: ['unprocessable', 'forbidden'],
});

export const getTemplate = templateOperation('GET /v1/templates/{id}', {
  summary: 'One template',
  description: 'A template of the account, or a system template of the gallery.',
  params: templateParams,
  success: [{ status: 200, description: 'The template.', schema: z.object({ template }) }],
  errors: ['forbidden', 'not_found'],
});

export const createTemplate = templateOperation('POST /v1/templates', {
  summary: 'Create a template',
  description:
    'Saves a new template (Handlebars in subject, HTML and text). Publishing checks that it renders; `alias` names ' +
    'it for sends by alias.',
  body: templateBody,
  bodyExample: {
    name: 'Receipt',
    alias: 'receipt',
    subject: 'Your receipt {{number}}',
    content_html: '<p>Thanks, {{name}}</p>',
    status: 'draft',
  },
  success: [{ status: 201, description: 'Saved.', schema: saved }],
  errors: ['conflict', 'payload_too_large', 'unprocessable', 'forbidden'],
});

export const updateTemplate = templateOperation('PUT /v1/templates/{id}', {
  summary: 'Save a template',
  description: 'Replaces a template’s fields; read-only fields sent back are ignored.',
  params: templateParams,
  body: templateBody,
  bodyExample: {
    name: 'Receipt',
    alias: 'receipt',
    subject: 'Your receipt {{number}}',
    content_html: '<p>Thanks, {{name}}, for order {{number}}</p>',
    status: 'published',
  },
  success: [{ status: 200, description: 'Saved.', schema: saved }],
  errors: ['not_found', 'conflict', 'payload_too_large', 'unprocessable', 'forbidden'],
});

export const deleteTemplate = templateOperation('DELETE /v1/templates/{id}', {
  summary: 'Delete a template',
  description: 'Deletes one of the account’s templates.',
  params: templateParams,
  success: [
    {
      status: 200,
      description: 'Deleted.',
      schema: messageAnswer,
      example: { message: 'Template deleted successfully' },
    },
  ],
  errors: ['not_found', 'forbidden'],
});

// A link's name and options as the console and the API send them (create, change); the expiry's
// window against the clock is checked by the server (src/server/attachments/attachments.service.ts).
const name = z
  .string()
  .trim()
  .max(200, { error: 'The name is at most 200 characters' })
  .regex(/^[^\u0000-\u001f]*$/, { error: 'The name must not contain control characters' });
const options = z.strictObject({
  expiry_timestamp: z
    .number({ error: 'expiry_timestamp must be unix seconds' })
    .int({ error: 'expiry_timestamp must be whole unix seconds' })
    .nonnegative({ error: 'expiry_timestamp must not be negative' })
    .nullish()
    .openapi({
      description:
        'When the link stops working, in unix seconds: after now and at most a year ahead (0 or null: never). ' +
        'One that is not in the future answers 422; a change that keeps the link’s own expiry is always taken.',
    }),
  access_limit: z
    .number({ error: 'access_limit must be a number' })
    .int({ error: 'access_limit must be a whole number' })
    .min(0, { error: 'access_limit must not be negative' })
    .max(1_000_000_000, { error: 'access_limit is too large' })
    .optional(),
});
export const groupInput = z.strictObject({ name: name.optional(), options: options.optional() });
export type GroupInput = z.infer<typeof groupInput>;

// The download page's colours (docs/console-reports.md §5); the logo is its own upload.
const colour = z.string().regex(/^#[0-9a-fA-F]{6}$/, { error: 'Colours are #rrggbb' });
const pair = z.strictObject({ colour, text_colour: colour });
export const brandingInput = z.strictObject({ page: pair, button: pair, link: pair });

export const attachmentListQuery = z.strictObject({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(ATTACHMENT_PAGE_SIZE),
  name: z.string().max(200).default(''),
});

const asset = z.object({ id: z.number().int(), name: z.string(), size: z.number().int(), content_type: z.string() });
const link = z.object({
  id: z.number().int(),
  name: z.string(),
  created_timestamp: z.number().int(),
  preview_link: z.string(),
  integration_id: z
    .string()
    .openapi({ description: 'What a send names as `online_attachment_id` to put this link in a message.' }),
  options: z.object({ expiry_timestamp: z.number().int().nullable(), access_limit: z.number().int() }),
  downloads: z.number().int(),
  state: z.enum(['live', 'expired', 'exhausted']).openapi({
    description:
      'Whether recipients can still download: `expired` past its expiry, `exhausted` at its download limit (the ' +
      'public page then answers 410).',
  }),
  asset_count: z.number().int(),
  assets: z.array(asset),
});
/** A tracked download link as the API answers it, read by the server and the console. */
export type DownloadLink = z.infer<typeof link>;
/** One file of a download link. */
export type LinkFile = z.infer<typeof asset>;
const branding = brandingInput.extend({ logo: z.object({ url: z.string(), fileName: z.string() }).nullable() });
const linkParams = z.object({ id: numericId });
const attachmentOperation = operationsOf({ tag: 'Tracked attachments', access: 'sessionOrApiKey' });
const both = 'Console session or the account’s API key.';

export const createLink = attachmentOperation('POST /v1/tracked-attachments/groups', {
  summary: 'Create a download link',
  description:
    `Creates a tracked download link, optionally with its first file. Multipart: \`group\` (JSON: name, ` +
    `options { expiry_timestamp, access_limit }) first, then \`asset\` (a file). A send that names its ` +
    `integration_id as \`online_attachment_id\` carries the link, per recipient. An expiry that is not in the ` +
    `future is refused (422). ${both}`,
  form: {
    mediaType: 'multipart/form-data',
    description: 'group: JSON text; asset: a file (optional).',
    schema: z.object({
      group: z.string().openapi({ description: 'JSON: { name, options: { expiry_timestamp, access_limit } }.' }),
      asset: z.string().optional().openapi({ format: 'binary' }),
    }),
    example: {
      fields: { group: '{"name":"Invoice 1042","options":{"access_limit":3}}' },
      files: { asset: 'invoice-1042.pdf' },
    },
  },
  success: [{ status: 201, description: 'The link.', schema: link }],
  errors: ['invalid_json', 'validation_failed', 'payload_too_large', 'unprocessable'],
});

export const listLinks = attachmentOperation('GET /v1/tracked-attachments/groups', {
  summary: 'List download links',
  description: `One page of the account’s links, newest first, by part of the name. ${both}`,
  query: attachmentListQuery,
  success: [
    {
      status: 200,
      description: 'One page of links.',
      schema: z
        .object({
          data: z.array(link),
          pagination: z.object({
            page: z.number().int(),
            limit: z.number().int(),
            total: z.number().int(),
            pages: z.number().int(),
          }),
        })
        .openapi({ description: 'The links and the paging fields.' }),
    },
  ],
});

export const getLink = attachmentOperation('GET /v1/tracked-attachments/groups/{id}', {
  summary: 'One download link',
  description: `A link with its files. ${both}`,
  params: linkParams,
  success: [{ status: 200, description: 'The link.', schema: link }],
  errors: ['not_found'],
});

export const updateLink = attachmentOperation('PATCH /v1/tracked-attachments/groups/{id}', {
  summary: 'Change a download link',
  description:
    `Renames a link or changes its expiry and download limit (fields left out keep their value). A new expiry ` +
    `that is not in the future is refused (422); the one the link has is kept as it is. ${both}`,
  params: linkParams,
  body: groupInput,
  bodyExample: { options: { access_limit: 5 } },
  success: [{ status: 200, description: 'The link.', schema: link }],
  errors: ['not_found', 'unprocessable'],
});

export const deleteLink = attachmentOperation('DELETE /v1/tracked-attachments/groups/{id}', {
  summary: 'Delete a download link',
  description: `Deletes a link and its files; the link stops working. ${both}`,
  params: linkParams,
  success: [{ status: 200, description: 'Deleted.', schema: messageAnswer }],
  errors: ['not_found'],
});

export const addFiles = attachmentOperation('POST /v1/tracked-attachments/groups/{id}/assets', {
  summary: 'Add files to a download link',
  description: `Uploads up to 20 files (multipart field \`asset\`), streamed to storage. ${both}`,
  params: linkParams,
  form: {
    mediaType: 'multipart/form-data',
    description: 'asset: one or more files.',
    schema: z.object({ asset: z.string().openapi({ format: 'binary' }) }),
    example: { fields: {}, files: { asset: 'terms-2026.pdf' } },
  },
  success: [{ status: 201, description: 'The files added.', schema: z.object({ assets: z.array(asset) }) }],
  errors: ['validation_failed', 'not_found', 'payload_too_large'],
});

export const deleteFile = attachmentOperation('DELETE /v1/tracked-attachments/groups/{id}/assets/{assetId}', {
  summary: 'Remove a file from a download link',
  description: `Deletes one file of a link. ${both}`,
  params: z.object({ id: numericId, assetId: numericId }),
  success: [{ status: 200, description: 'Deleted.', schema: messageAnswer, example: { message: 'File deleted' } }],
  errors: ['not_found'],
});

export const getBranding = attachmentOperation('GET /v1/tracked-attachments/branding', {
  summary: 'Download page branding',
  description: `The colours of the recipients’ download page and its logo. ${both}`,
  success: [{ status: 200, description: 'The branding.', schema: branding }],
});

export const saveBranding = attachmentOperation('POST /v1/tracked-attachments/branding', {
  summary: 'Save download page branding',
  description:
    `Multipart: \`settings\` (JSON: page, button and link, each { colour, text_colour } as #rrggbb) and ` +
    `optionally \`asset\` (a PNG, JPEG or GIF logo). ${both}`,
  form: {
    mediaType: 'multipart/form-data',
    description: 'settings: JSON text; asset: the logo (optional).',
    schema: z.object({ settings: z.string(), asset: z.string().optional().openapi({ format: 'binary' }) }),
    example: {
      fields: {
        settings:
          '{"page":{"colour":"#ffffff","text_colour":"#1f2933"},' +
          '"button":{"colour":"#1e5bb8","text_colour":"#ffffff"},' +
          '"link":{"colour":"#ffffff","text_colour":"#1e5bb8"}}',
      },
      files: { asset: 'logo.png' },
    },
  },
  success: [{ status: 200, description: 'Saved.', schema: branding.extend({ message: z.string() }) }],
  errors: ['invalid_json', 'validation_failed', 'payload_too_large'],
});

export const getLogo = attachmentOperation('GET /v1/tracked-attachments/branding/logo', {
  summary: 'The download page logo',
  description: `The logo image as uploaded. ${both}`,
  success: [
    {
      status: 200,
      description: 'The image.',
      content: { 'image/png': 'PNG', 'image/jpeg': 'JPEG', 'image/gif': 'GIF' },
    },
  ],
  errors: ['not_found'],
});

export const deleteLogo = attachmentOperation('DELETE /v1/tracked-attachments/branding/logo', {
  summary: 'Remove the download page logo',
  description: `Deletes the logo; 404 when there is none. ${both}`,
  success: [{ status: 200, description: 'Deleted.', schema: messageAnswer }],
  errors: ['not_found'],
});

export const templateOperations = [
  searchTemplates,
  renderTemplate,
  getTemplate,
  createTemplate,
  updateTemplate,
  deleteTemplate,
  createLink,
  listLinks,
  getLink,
  updateLink,
  deleteLink,
  addFiles,
  deleteFile,
  getBranding,
  saveBranding,
  getLogo,
  deleteLogo,
];

// The pieces every /v1 operation of the contract shares: the error envelope and its closed set of
// codes, the three ways a caller proves who it is, and `operation`, which turns one call's request
// schemas, success answer and refusals into a @hono/zod-openapi route (docs/integrating.md "The API
// contract" says how to add a call).
import { createRoute, z } from '@hono/zod-openapi';
import { ERROR_STATUS, type ErrorCode, RESEND_ERROR_NAME } from './error-codes.ts';
import { isUuid } from './fields.ts';

const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

/** What each code means, for the document's error descriptions. */
const ERROR_MEANING: Record<ErrorCode, string> = {
  bad_request: 'the request is malformed (a control character in the address, a wrong form body)',
  invalid_json: 'the body is not JSON, or nests more than 64 levels deep',
  validation_failed:
    'a field is missing, of the wrong type, too long or out of range; `details` lists each problem with its path',
  webhook_url_not_allowed: 'the webhook URL points at a private or loopback address',
  unauthorized: 'no valid session cookie or API key',
  invalid_credentials: 'the email or password is wrong',
  forbidden:
    'the signed-in user may not do this (only users allowed to send transactions may), or the API key may not: ' +
    'a sending_access key makes only the send calls, From its domain when it has one',
  csrf_failed: 'a console call that changes state lacks `Request-Type: ui`, or came from another site',
  not_found: 'no such item in this account (another account’s id answers the same)',
  method_not_allowed: 'the path exists but not with this method; the Allow header names those it has',
  conflict: 'the Idempotency-Key was already used with a different request, or the item exists',
  precondition_failed: 'the export belongs to another user of the account',
  payload_too_large: 'the body is larger than the limit for this call',
  unsupported_media_type:
    'the body’s Content-Type is not one this call lists for its request body (or a body came without one)',
  unprocessable: 'the request is well formed but cannot be carried out as it stands',
  domain_not_verified: 'the From domain is not a verified sending domain of this account',
  missing_variables: 'the template uses variables the request did not give',
  too_many_requests: 'too many tries; wait and try again',
  internal: 'an unexpected failure on our side',
  unavailable: 'the service cannot take the request just now',
  database_unavailable:
    'the database cannot be reached for a moment; nothing was changed (Retry-After says when to try again)',
  storage_full: 'the server is out of storage space; nothing was stored (Retry-After says when to try again)',
};

/** `{ error: { code, message, details? } }`: every refusal of the API. */
export const errorEnvelope = z
  .object({
    error: z.object({
      code: z.enum(ERROR_CODES).openapi({ description: 'A stable, machine-readable reason.' }),
      message: z.string().openapi({ description: 'A sentence for people; may change wording.' }),
      details: z
        .unknown()
        .optional()
        .openapi({ description: 'For validation_failed: `[{ path, message }]`, one entry per problem.' }),
    }),
    messages: z
      .array(z.string())
      .optional()
      .openapi({ description: 'POST /v1/domains only: the same problems as a list, for the console’s modal.' }),
  })
  .openapi('Error', {
    example: {
      error: {
        code: 'validation_failed',
        message: 'Invalid request: subject: Required',
        details: [{ path: 'subject', message: 'Required' }],
      },
    },
  });

/** `{ statusCode, name, message }`: every refusal on the Resend-compatible surface (/resend/*), as Resend answers. */
export const resendError = z
  .object({
    statusCode: z.number().int().openapi({ description: 'The HTTP status again.' }),
    name: z.string().openapi({ description: 'Resend’s name for the reason: `validation_error`, `not_found`, …' }),
    message: z.string().openapi({ description: 'A sentence for people; may change wording.' }),
  })
  .openapi('ResendError', {
    example: { statusCode: 422, name: 'validation_error', message: 'Invalid request: subject: Required' },
  });

/**
 * Who may call an operation. `session`: the console's cookie (calls that change state also carry
 * `Request-Type: ui`); `apiKey`: `Authorization: Bearer <apiKey>` or Basic `username:apiKey`.
 */
export type Access = 'public' | 'session' | 'apiKey' | 'sessionOrApiKey';

export const SECURITY_SCHEMES = {
  bearerApiKey: {
    type: 'http',
    scheme: 'bearer',
    description:
      'The account’s API key (Settings → Credentials) or a named one (Settings → API keys): ' +
      '`Authorization: Bearer <apiKey>`.',
  },
  basicApiKey: {
    type: 'http',
    scheme: 'basic',
    description:
      'HTTP Basic with the account’s SMTP username and its API key as the password (`username:apiKey`); with a ' +
      'named key any username.',
  },
  sessionCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: 'transact_session',
    description:
      'The console’s session cookie, set by POST /v1/auth/login. Calls that change state must also send the header ' +
      '`Request-Type: ui` (and, from a browser, a same-origin Origin), or they get 403 csrf_failed.',
  },
} as const;

const SECURITY: Record<Access, Record<string, string[]>[]> = {
  public: [],
  session: [{ sessionCookie: [] }],
  apiKey: [{ bearerApiKey: [] }, { basicApiKey: [] }],
  sessionOrApiKey: [{ sessionCookie: [] }, { bearerApiKey: [] }, { basicApiKey: [] }],
};

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface Success {
  status: 200 | 201 | 202 | 204 | 302;
  description: string;
  /** The JSON answer; absent for 204/302 and for non-JSON answers given in `content`. */
  schema?: z.ZodType;
  example?: unknown;
  /** A non-JSON answer (a CSV or an image): media type → description. */
  content?: Record<string, string>;
}

/** A form body's example: its text fields' values, and the file name sent in each file field. */
export interface FormExample {
  fields: Record<string, string>;
  files: Record<string, string>;
}

/** One /v1 call of the contract, in the words the reference page shows. */
export interface OperationSpec<
  P extends z.ZodObject | undefined = undefined,
  Q extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  S extends readonly Success[] = Success[],
  M extends Method = Method,
  Pa extends string = string,
> {
  method: M;
  /** The OpenAPI path, `{name}` for parameters (`/v1/domains/{id}`). */
  path: Pa;
  tag: string;
  summary: string;
  description: string;
  access: Access;
  params?: P;
  query?: Q;
  body?: B;
  bodyExample?: unknown;
  /**
   * Named examples instead of `bodyExample`, for a body that comes in more than one form (a
   * message, or a template with its variables); the first is the one the code samples send.
   */
  bodyExamples?: Record<string, { summary: string; value: unknown }>;
  /** A multipart or form body documented as such (its fields are read by the handler). */
  form?: { mediaType: string; schema: z.ZodType; description: string; example: FormExample };
  /**
   * The handler checks the query and body itself with these schemas (a template send fills the
   * body from the template first; the sign-in callback redirects rather than answering 400).
   */
  checkedByHandler?: boolean;
  /** Its answers; their schemas' types are kept, so the console's client is typed from them. */
  success: S;
  /**
   * The error codes this call can answer with beside those its access, method and request parts
   * give (`implicitErrors`, `requestErrors`).
   */
  errors?: ErrorCode[];
  headers?: z.ZodObject;
  /** Hono's pattern when it differs from the path (`/v1/suppression/:email{.+}`). */
  honoPath?: string;
  /** Refusals in Resend's shape (`resendError`) instead of our envelope: the /resend/* surface. */
  resendShape?: boolean;
  /** The call with the `resend` SDK, for the reference's samples (`resend.emails.get(id)`). */
  sdkCall?: string;
}

export type Operation<
  P extends z.ZodObject | undefined = z.ZodObject | undefined,
  Q extends z.ZodObject | undefined = z.ZodObject | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  S extends readonly Success[] = readonly Success[],
  M extends Method = Method,
  Pa extends string = string,
> = OperationSpec<P, Q, B, S, M, Pa> & {
  route: ReturnType<typeof createRoute>;
  honoPath: string;
  id: string;
  /**
   * The media types the document lists for the request body (`application/json`, or the form's);
   * empty when the call takes no body. The server refuses a body in any other (415).
   */
  mediaTypes: readonly string[];
};

/** Codes every call of an access kind can give, beside its own. */
function implicitErrors(access: Access, method: Method, takesBody: boolean): ErrorCode[] {
  const out: ErrorCode[] = ['bad_request'];
  if (access !== 'public') out.push('unauthorized');
  if (access === 'apiKey' || access === 'sessionOrApiKey') out.push('forbidden'); // a sending_access key
  if (access === 'session' || access === 'sessionOrApiKey') if (method !== 'get') out.push('csrf_failed');
  if (method !== 'get') out.push('payload_too_large'); // a DELETE can carry a body too
  if (takesBody) out.push('unsupported_media_type'); // a body in a media type the call does not list
  out.push('internal'); // a failure of ours: logged, never a reason the input gives
  out.push('database_unavailable'); // any call that reads or writes the database
  if (method !== 'get') out.push('storage_full'); // a write on a full disk
  return out;
}

/**
 * Codes the request's validated parts give: a path parameter can name nothing, a JSON body can be no
 * JSON or fail its schema, a query the contract checks can fail its schema (one the handler checks
 * answers in its own way).
 */
function requestErrors(spec: {
  params?: unknown;
  body?: unknown;
  query?: unknown;
  checkedByHandler?: boolean;
}): ErrorCode[] {
  // a path parameter that cannot name anything (not a uuid, not a number) is an unknown item
  const params: ErrorCode[] = spec.params ? ['not_found'] : [];
  if (spec.body) return [...params, 'invalid_json', 'validation_failed'];
  if (spec.query && !spec.checkedByHandler) return [...params, 'validation_failed'];
  return params;
}

function operationId(method: Method, path: string): string {
  const words = path
    .replace(/^\/v1\//, '')
    .split(/[/_-]/)
    .filter(Boolean)
    .map((w) => (w.startsWith('{') ? `by ${w.slice(1, -1)}` : w))
    .join(' ')
    .split(' ');
  return [method, ...words].map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1))).join('');
}

type Responses = Record<
  string,
  {
    description: string;
    content?: Record<string, { schema: z.ZodType | object; example?: unknown }>;
    /** An error status's codes, for machines: the description names the same ones for people. */
    'x-error-codes'?: ErrorCode[];
  }
>;

/** The documented answers: each success, then each error status with the codes that give it. */
function responsesOf(success: readonly Success[], codes: ErrorCode[], resendShape = false): Responses {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  const responses: Responses = {};
  for (const s of success) {
    responses[String(s.status)] = {
      description: s.description,
      ...(s.schema
        ? {
            content: {
              'application/json': { schema: s.schema, ...(s.example === undefined ? {} : { example: s.example }) },
            },
          }
        : {}),
      ...(s.content
        ? {
            content: Object.fromEntries(
              Object.entries(s.content).map(([type, description]) => [
                type,
                { schema: { type: 'string', format: 'binary', description } },
              ]),
            ),
          }
        : {}),
    };
  }
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const meaning = (code: ErrorCode) =>
      resendShape
        ? `\`${RESEND_ERROR_NAME[code]}\` (${code}): ${ERROR_MEANING[code]}`
        : `\`${code}\`: ${ERROR_MEANING[code]}`;
    responses[String(status)] = {
      description: list.map(meaning).join('; '),
      content: { 'application/json': { schema: resendShape ? resendError : errorEnvelope } },
      'x-error-codes': list,
    };
  }
  return responses;
}

/** The documented request body: JSON with its example(s), or the form in its own media type. */
function requestBodyOf(spec: Pick<OperationSpec<undefined, undefined, z.ZodType | undefined>, BodyKeys>) {
  if (spec.body)
    return {
      required: !spec.body.safeParse({}).success,
      content: {
        'application/json': {
          schema: spec.body,
          ...(spec.bodyExamples
            ? { examples: spec.bodyExamples }
            : spec.bodyExample === undefined
              ? {}
              : { example: spec.bodyExample }),
        },
      },
    };
  if (spec.form)
    return {
      required: true,
      description: spec.form.description,
      content: {
        [spec.form.mediaType]: {
          schema: spec.form.schema,
          // a file field shows the name of the file sent in it
          example: { ...spec.form.example.fields, ...spec.form.example.files },
        },
      },
    };
  return undefined;
}

type BodyKeys = 'body' | 'bodyExample' | 'bodyExamples' | 'form';

/** A contract operation: its route for the document and the typed pieces the server validates with. */
function operation<
  P extends z.ZodObject | undefined = undefined,
  Q extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  const S extends readonly Success[] = Success[],
  M extends Method = Method,
  Pa extends string = string,
>(spec: OperationSpec<P, Q, B, S, M, Pa>): Operation<P, Q, B, S, M, Pa> {
  const body = requestBodyOf(spec);
  const codes = [
    ...new Set([
      ...implicitErrors(spec.access, spec.method, body !== undefined),
      ...requestErrors(spec),
      ...(spec.errors ?? []),
    ]),
  ];
  const route = createRoute({
    method: spec.method,
    path: spec.path,
    tags: [spec.tag],
    summary: spec.summary,
    description: spec.description,
    operationId: operationId(spec.method, spec.path),
    security: SECURITY[spec.access],
    request: {
      ...(spec.params ? { params: spec.params } : {}),
      ...(spec.query ? { query: spec.query } : {}),
      ...(spec.headers ? { headers: spec.headers } : {}),
      ...(body ? { body } : {}),
    },
    responses: responsesOf(spec.success, codes, spec.resendShape),
  } as Parameters<typeof createRoute>[0]);
  return {
    ...spec,
    bodyExample: spec.bodyExample ?? Object.values(spec.bodyExamples ?? {})[0]?.value,
    route,
    honoPath: spec.honoPath ?? spec.path.replace(/\{(\w+)\}/g, ':$1'),
    id: operationId(spec.method, spec.path),
    mediaTypes: Object.keys(body?.content ?? {}),
  };
}

/** The paging of a list answer: which page this is of how many, and the rows in all. */
export const pageMeta = z.object({
  current_page: z.number().int(),
  per_page: z.number().int(),
  total: z.number().int(),
  last_page: z.number().int(),
});

/** `{ data: [item…], meta }`: one page of a console list (`meta` when it says more than pageMeta). */
export function pageOf<T extends z.ZodType>(item: T): z.ZodObject<{ data: z.ZodArray<T>; meta: typeof pageMeta }>;
export function pageOf<T extends z.ZodType, M extends z.ZodObject>(
  item: T,
  meta: M,
): z.ZodObject<{ data: z.ZodArray<T>; meta: M }>;
export function pageOf(item: z.ZodType, meta: z.ZodObject = pageMeta) {
  return z.object({ data: z.array(item), meta });
}

/** Resend's list answer, `{ object: 'list', has_more, data }`, with its example. */
export function resendList<T extends z.ZodType>(description: string, item: T, example: unknown[]) {
  return {
    status: 200 as const,
    description,
    schema: z.object({ object: z.literal('list'), has_more: z.boolean(), data: z.array(item) }),
    example: { object: 'list', has_more: false, data: example },
  };
}

/**
 * Resend's cursor pages of a list, newest first: at most `limit` (1 to 100, 20 if not given), after
 * or before an item named by its uuid (`item` names it in the reference), never both. A cursor that
 * is not a uuid is 400 validation_error; one that names no item of the account, 404.
 */
export function resendPageQuery(item: string) {
  return z
    .object({
      limit: z.coerce.number().int().min(1).max(100).default(20).openapi({ description: '1 to 100; 20 if not given.' }),
      after: uuidId(`The page after this ${item} (older ones): its id.`).optional(),
      before: uuidId(`The page before this ${item} (newer ones): its id.`).optional(),
    })
    .refine((q) => !(q.after && q.before), { message: 'give after or before, not both', path: ['before'] });
}

/** Resend's answer naming what a call acted on, `{ object, id }`, with `id` as its example. */
export function resendRef(description: string, object: string, id: string) {
  return {
    status: 200 as const,
    description,
    schema: z.object({ object: z.literal(object), id: z.string() }),
    example: { object, id },
  };
}

/**
 * The GET twin of a POST call: the same answer, with the body's fields in the query string
 * (`note` adds what differs).
 */
export function queryTwin<Q extends z.ZodObject, const S extends readonly Success[], Pa extends string>(
  post: Operation<z.ZodObject | undefined, z.ZodObject | undefined, z.ZodType | undefined, S, 'post', Pa>,
  query: Q,
  note = '',
) {
  return operation({
    method: 'get',
    path: post.path,
    tag: post.tag,
    summary: `${post.summary} (query string)`,
    description: `The same as POST ${post.path} with the fields in the query string${note}.`,
    access: post.access,
    query,
    success: post.success,
    errors: post.errors,
  });
}

/** A call named as the console's client names it: its method in capitals and its path, `'GET /v1/domains/{id}'`. */
export type RouteKey = `${Uppercase<Method>} /${string}`;
type MethodOf<R extends RouteKey> = R extends `${infer M} ${string}` ? Lowercase<M> & Method : never;
type PathOf<R extends RouteKey> = R extends `${string} ${infer Pa}` ? Pa : never;

/** What the calls of one part of the API share: their tag in the reference, their access, their refusals' shape. */
type Shared = Pick<OperationSpec, 'tag' | 'access' | 'resendShape'>;

/**
 * Operations that share `shared`, each named by its route key:
 * `const domainOperation = operationsOf({ tag: 'Domains', access: 'session' })`, then
 * `domainOperation('GET /v1/domains/{id}', { summary, description, params, success, errors })`.
 */
export function operationsOf(shared: Shared) {
  return <
    const R extends RouteKey,
    P extends z.ZodObject | undefined = undefined,
    Q extends z.ZodObject | undefined = undefined,
    B extends z.ZodType | undefined = undefined,
    const S extends readonly Success[] = Success[],
  >(
    key: R,
    spec: Omit<OperationSpec<P, Q, B, S, MethodOf<R>, PathOf<R>>, 'method' | 'path' | keyof Shared>,
  ): Operation<P, Q, B, S, MethodOf<R>, PathOf<R>> => {
    const space = key.indexOf(' ');
    const method = key.slice(0, space).toLowerCase() as MethodOf<R>;
    const path = key.slice(space + 1) as PathOf<R>;
    return operation({ method, path, ...shared, ...spec });
  };
}

/** The Resend-compatible surface (/resend/*): the API key, Resend's refusals, its own tag. */
export const resendOperation = operationsOf({ tag: 'Resend-compatible', access: 'apiKey', resendShape: true });

/** A JSON object answer's `{ message }`. */
export const messageAnswer = z.object({ message: z.string() });

/**
 * An id stored as a number (a bigint column): 1 to 15 digits, parsed to a number before any
 * query sees it. As a path parameter anything else answers 404 like an unknown id
 * (http/contract-route.ts); in a query or body, 400 validation_failed.
 */
export const numericId = z
  .string()
  .regex(/^\d{1,15}$/, 'must be a numeric id')
  .transform(Number)
  .openapi({ description: 'A numeric id; anything else answers 404 like an unknown id.', example: '42' });

/**
 * An id stored as a uuid (a path id, or a cursor naming an item): any case, answered lower-case to
 * the code below; as a path parameter anything else answers 404 like an unknown id
 * (http/contract-route.ts), in a query 400 validation_failed. Every uuid the API reads is one of these.
 */
export function uuidId(description: string, example = '3f1c0d8e-6b1a-4c55-9a55-2f1f6ad1b7e4') {
  return z
    .string()
    .refine(isUuid, 'must be a uuid')
    .transform((text) => text.toLowerCase())
    .openapi({ description, example, format: 'uuid' });
}

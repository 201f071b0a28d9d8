// The console's calls typed from the contract: a call is named by its method and OpenAPI path
// ('POST /v1/templates/search'), and its path parameters, query, body and answer are the types of
// the operation's own schemas. Types only: browser files import this with `import type`, so no
// schema code reaches the browser.
import type { z } from 'zod';
import type { accountOperations } from './account.ts';
import type { reportOperations } from './reports.ts';
import type { sendingOperations } from './sending.ts';
import type { templateOperations } from './templates.ts';
import type { webhookOperations } from './webhooks.ts';
import type { referenceOperations } from './reference.ts';
import type { apiKeyOperations } from './api-keys.ts';
import type { inboundOperations } from './inbound.ts';

type AnyOperation =
  | (typeof sendingOperations)[number]
  | (typeof templateOperations)[number]
  | (typeof reportOperations)[number]
  | (typeof webhookOperations)[number]
  | (typeof accountOperations)[number]
  | (typeof referenceOperations)[number]
  | (typeof apiKeyOperations)[number]
  | (typeof inboundOperations)[number];

/** 'GET /v1/dashboard', 'POST /v1/templates/search', 'DELETE /v1/suppression/{email}', … */
export type CallKey = AnyOperation extends infer O
  ? O extends { method: infer M extends string; path: infer P extends string }
    ? `${Uppercase<M>} ${P}`
    : never
  : never;

/** The operation a key names. */
export type OperationOf<K extends CallKey> = K extends `${infer M} ${infer P}`
  ? Extract<AnyOperation, { method: Lowercase<M>; path: P }>
  : never;

type Input<T> = T extends z.ZodType ? z.input<T> : never;

/** The JSON answer of a call's success (a union when it has several); undefined when it answers no JSON. */
export type AnswerOf<K extends CallKey> = [Extract<OperationOf<K>['success'][number], { schema: z.ZodType }>] extends [
  never,
]
  ? undefined
  : z.output<Extract<OperationOf<K>['success'][number], { schema: z.ZodType }>['schema']>;

/**
 * A call's success answers with their HTTP status, one `{ status, data }` per documented success
 * (`{ status: 202, data: … }`); data is undefined for an answer without JSON (204).
 */
export type AnswerWithStatusOf<K extends CallKey> = OperationOf<K>['success'][number] extends infer S
  ? S extends { status: infer N extends number }
    ? { status: N; data: S extends { schema: infer T extends z.ZodType } ? z.output<T> : undefined }
    : never
  : never;

/** The JSON body a call takes. */
export type BodyOf<K extends CallKey> = Input<OperationOf<K>['body']>;
/** The query a call takes. */
export type QueryOf<K extends CallKey> = Input<OperationOf<K>['query']>;
/** The path parameters a call takes. */
export type ParamsOf<K extends CallKey> = Input<OperationOf<K>['params']>;

/** What a call is given beside its key: path parameters when it has some, its query and its body. */
export type CallOptions<K extends CallKey> = ([ParamsOf<K>] extends [never]
  ? { params?: undefined }
  : { params: ParamsOf<K> }) & {
  query?: [QueryOf<K>] extends [never] ? undefined : QueryOf<K>;
  /** The JSON body; a FormData for the calls that take a multipart form (uploads). */
  body?: ([BodyOf<K>] extends [never] ? Record<string, never> : BodyOf<K>) | FormData;
  signal?: AbortSignal;
};

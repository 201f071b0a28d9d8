// Serves a contract operation (src/contract/*): the route is registered at the operation's path
// and method, and its handler receives the path, query and JSON body already checked with the
// operation's own schemas, through the same readers (jsonBody, check) and so with the same codes
// and messages as before the contract; a path parameter that is not of its type answers 404. A
// body in a media type the operation does not list is refused here, for every operation alike,
// before anything reads it (415). Middleware (session,
// CSRF, permission) runs first, so a caller without the right to the call learns nothing about its
// input rules.
import type { Context, Env, Hono, MiddlewareHandler } from 'hono';
import type { z } from 'zod';
import type { Operation } from '../../contract/common.ts';
import { check } from '../core/check.ts';
import { DomainError } from '../core/errors.ts';
import { unsupportedMediaType } from './media-type.ts';
import { jsonBody } from './validate.ts';

type Out<T> = [Exclude<T, undefined>] extends [never]
  ? undefined
  : Exclude<T, undefined> extends z.ZodType
    ? z.output<Exclude<T, undefined>>
    : undefined;

/** What a handler of `O` receives, typed from its schemas. */
export interface OperationInput<O extends Operation> {
  params: Out<O['params']>;
  /** Query and body are undefined when the operation checks them itself (checkedByHandler). */
  query: O['checkedByHandler'] extends true ? undefined : Out<O['query']>;
  body: O['checkedByHandler'] extends true ? undefined : Out<O['body']>;
}

export type OperationHandler<E extends Env, O extends Operation> = (
  c: Context<E>,
  input: OperationInput<O>,
) => Response | Promise<Response>;

/**
 * The path's parameters parsed by the operation's schema (a uuid, a bounded number): one that cannot
 * name anything is an unknown item, 404, so no query ever sees a value of the wrong type.
 */
function pathParams<S extends z.ZodType>(schema: S, raw: Record<string, string>): z.output<S> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const [issue] = parsed.error.issues;
  throw new DomainError('not_found', `Not found: ${issue.path.join('.') || 'the path'} ${issue.message}`);
}

/** The registrar for an app mounted at `base` ('/v1' for the console apps, '' at the root). */
export function contractRoutes<E extends Env>(app: Hono<E>, base: string) {
  return function serve<O extends Operation>(
    op: O,
    middleware: readonly MiddlewareHandler<E>[],
    handler: OperationHandler<E, O>,
  ): void {
    if (!op.honoPath.startsWith(base)) throw new Error(`${op.honoPath} is not under ${base}`);
    const run: MiddlewareHandler<E> = async (c) => {
      const refused = unsupportedMediaType(
        {
          contentType: c.req.header('content-type'),
          contentLength: c.req.header('content-length'),
          transferEncoding: c.req.header('transfer-encoding'),
        },
        op.mediaTypes,
      );
      if (refused) throw refused;
      const input = {
        params: op.params ? pathParams(op.params, c.req.param()) : undefined,
        query: op.query && !op.checkedByHandler ? check(op.query, c.req.query()) : undefined,
        body: op.body && !op.checkedByHandler ? await jsonBody(c, op.body) : undefined,
      } as OperationInput<O>;
      return handler(c as Context<E>, input);
    };
    const on = app.on as (method: string, path: string, ...handlers: MiddlewareHandler<E>[]) => unknown;
    on(op.method.toUpperCase(), op.honoPath.slice(base.length), ...middleware, run);
  };
}

// Reads and checks request input with zod. Malformed JSON is 400 invalid_json; a body that parses
// but breaks the schema is 400 validation_failed with one entry per problem, so clients can fix
// every field at once.
import type { Context } from 'hono';
import { z } from 'zod';
import { ApiError } from './errors.ts';

function describe(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.map((issue) => ({ path: issue.path.join('.') || '(body)', message: issue.message }));
}

/** Parses `value` with `schema` or throws ApiError('validation_failed'). */
export function check<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const details = describe(result.error);
    throw new ApiError('validation_failed', `Invalid request: ${details.map((d) => `${d.path}: ${d.message}`).join('; ')}`, { details });
  }
  return result.data;
}

/** The path of the first string (value or key) holding U+0000, which PostgreSQL text cannot store. */
function nulPath(value: unknown, path: string[] = []): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path.join('.') || '(body)' : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, item] of Object.entries(value)) {
    const found = key.includes('\u0000') ? [...path, key].join('.') : nulPath(item, [...path, key]);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** 400 when any string (value or key) holds U+0000, which PostgreSQL text cannot store. */
export function rejectNul(value: unknown): void {
  const nul = nulPath(value);
  if (nul !== undefined) {
    const details = [{ path: nul, message: 'must not contain the NUL character (\\u0000)' }];
    throw new ApiError('validation_failed', `Invalid request: ${nul}: ${details[0].message}`, { details });
  }
}

/** The JSON body, checked against `schema`. An empty body is read as {}. */
export async function jsonBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  const text = await c.req.text();
  let value: unknown = {};
  if (text.trim() !== '') {
    try {
      value = JSON.parse(text);
    } catch {
      throw new ApiError('invalid_json', 'The request body is not valid JSON');
    }
  }
  rejectNul(value);
  return check(schema, value);
}

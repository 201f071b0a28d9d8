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

const NUL = '\u0000';
const LONE_SURROGATE = /\p{Cs}/u;

/** The first string (value or key) PostgreSQL text or jsonb cannot store: NUL, or half a surrogate pair. */
function unstorable(value: unknown, path: string[] = []): { path: string; message: string } | undefined {
  const problem = (text: string) =>
    text.includes(NUL) ? 'must not contain the NUL character (\\u0000)' : LONE_SURROGATE.test(text) ? 'must be valid Unicode text (it holds an unpaired UTF-16 surrogate)' : undefined;
  if (typeof value === 'string') {
    const message = problem(value);
    return message ? { path: path.join('.') || '(body)', message } : undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, item] of Object.entries(value)) {
    const message = problem(key);
    const found = message ? { path: [...path, key].join('.'), message } : unstorable(item, [...path, key]);
    if (found) return found;
  }
  return undefined;
}

/** 400 when any string holds what PostgreSQL cannot store (JSON can escape both: "\\u0000", "\\ud800"). */
export function rejectUnstorableText(value: unknown): void {
  const found = unstorable(value);
  if (found) throw new ApiError('validation_failed', `Invalid request: ${found.path}: ${found.message}`, { details: [found] });
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
  rejectUnstorableText(value);
  return check(schema, value);
}

// Reads and checks request input with zod. Malformed JSON is 400 invalid_json; a body that parses
// but breaks the schema is 400 validation_failed with one entry per problem, so clients can fix
// every field at once.
import type { Context } from 'hono';
import type { z } from 'zod';
import { check } from '../core/check.ts';
import { DomainError } from '../core/errors.ts';

const NUL = '\u0000';
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * How deeply a JSON body may nest arrays and objects. Our deepest schema needs 3 (a batch of
 * messages with headers); 64 leaves room for metadata and keeps every later walk of the value
 * shallow (100,000 levels overflowed the stack of the recursive check this replaced).
 */
export const MAX_JSON_DEPTH = 64;

type Problem = { kind: 'depth' | 'text'; path: string; message: string };

function textProblem(text: string): string | undefined {
  return text.includes(NUL)
    ? 'must not contain the NUL character (\\u0000)'
    : LONE_SURROGATE.test(text)
      ? 'must be valid Unicode text (it holds an unpaired UTF-16 surrogate)'
      : undefined;
}

/**
 * The first problem of a parsed JSON value, depth first: nesting beyond MAX_JSON_DEPTH, or a
 * string (value or key) PostgreSQL text or jsonb cannot store (NUL, or half a surrogate pair).
 * An explicit stack, so no input can exhaust the call stack.
 */
function firstProblem(root: unknown): Problem | undefined {
  const stack: { value: unknown; path: string[]; depth: number }[] = [{ value: root, path: [], depth: 0 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      const message = textProblem(value);
      if (message) return { kind: 'text', path: path.join('.') || '(body)', message };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH)
      return {
        kind: 'depth',
        path: path.join('.') || '(body)',
        message: `nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`,
      };
    const entries = Object.entries(value);
    for (let i = entries.length - 1; i >= 0; i -= 1) {
      const [key, item] = entries[i];
      const message = textProblem(key);
      if (message) return { kind: 'text', path: [...path, key].join('.'), message };
      stack.push({ value: item, path: [...path, key], depth: depth + 1 });
    }
  }
  return undefined;
}

/**
 * The one way a request's JSON body is read (jsonBody here, the send endpoints' readJson): 400
 * invalid_json when it does not parse or nests deeper than MAX_JSON_DEPTH, 400 validation_failed
 * when a string holds what PostgreSQL cannot store (JSON can escape both: "\\u0000", "\\ud800").
 */
export function parseJsonBody(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new DomainError('invalid_json', 'The request body is not valid JSON');
  }
  const found = firstProblem(value);
  if (!found) return value;
  if (found.kind === 'depth')
    throw new DomainError(
      'invalid_json',
      `The request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`,
    );
  const detail = { path: found.path, message: found.message };
  throw new DomainError('validation_failed', `Invalid request: ${detail.path}: ${detail.message}`, {
    details: [detail],
  });
}

/** The JSON body, checked against `schema`. An empty body is read as {}. */
export async function jsonBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  const text = await c.req.text();
  const value = text.trim() === '' ? {} : parseJsonBody(text);
  return check(schema, value);
}

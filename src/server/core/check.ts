// Checks a value against a zod schema for the services and routes alike: a value that breaks the
// schema is DomainError('validation_failed') with one entry per problem, so clients can fix every
// field at once. Lives below the domains (no HTTP in it): http/validate.ts reads request bodies with it.
import type { z } from 'zod';
import { DomainError } from './errors.ts';

function describe(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.map((issue) => ({ path: issue.path.join('.') || '(body)', message: issue.message }));
}

/** Parses `value` with `schema` or throws DomainError('validation_failed'). */
export function check<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const details = describe(result.error);
    throw new DomainError(
      'validation_failed',
      `Invalid request: ${details.map((d) => `${d.path}: ${d.message}`).join('; ')}`,
      { details },
    );
  }
  return result.data;
}

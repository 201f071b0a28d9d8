// The console's reads answer with Cache-Control: no-store: they are one customer's data (and some
// carry secrets), which neither the browser's cache nor a proxy may keep.
import type { Context } from 'hono';

/** `body` as JSON, marked for no cache to store. */
export function noStoreJson(c: Context, body: unknown): Response {
  c.header('Cache-Control', 'no-store');
  return c.json(body);
}

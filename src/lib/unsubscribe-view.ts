// What an unsubscribe page shows, decided on the server (so both pages work with JavaScript off):
// a GET only looks the transaction up; a form POST makes the change and renders its result.
import type { PageBridge } from '../server/page-bridge.ts';

export type SubscriptionView = 'subscribed' | 'unsubscribed' | 'error';

export type SubscriptionPage =
  | { kind: 'redirect'; url: string }
  | { kind: 'view'; view: SubscriptionView; status: number; message: string; notice: string | null };

/**
 * The Error state's text when the link names no transaction (docs/console-reports.md §8: the server message or
 * 'Error').
 */
export const INVALID_LINK = 'This unsubscribe link is not valid.';

/** A returned redirect is followed only to a web page (never javascript: or data:). */
export function safeRedirect(url: string | null | undefined, base: string): string | null {
  if (!url) return null;
  try {
    const target = new URL(url, base);
    return target.protocol === 'https:' || target.protocol === 'http:' ? target.href : null;
  } catch {
    return null;
  }
}

export async function subscriptionPage(
  bridge: PageBridge,
  request: Request,
  transactionId: string,
): Promise<SubscriptionPage> {
  if (request.method !== 'POST') {
    // GET and HEAD change nothing (docs/architecture.md §8: link scanners must not unsubscribe anyone)
    return (await bridge.isKnownTransaction(transactionId))
      ? { kind: 'view', view: 'subscribed', status: 200, message: '', notice: null }
      : { kind: 'view', view: 'error', status: 404, message: INVALID_LINK, notice: null };
  }
  const form = await request.formData().catch(() => null);
  const action = form?.get('action') === 'resubscribe' ? 'resubscribe' : 'unsubscribe';
  const outcome = await bridge.changeSubscription(transactionId, action);
  if (!outcome.ok) return { kind: 'view', view: 'error', status: 404, message: outcome.message, notice: null };
  const redirect = safeRedirect(outcome.redirect, request.url);
  if (redirect) return { kind: 'redirect', url: redirect };
  return action === 'unsubscribe'
    ? { kind: 'view', view: 'unsubscribed', status: 200, message: outcome.message, notice: null }
    : { kind: 'view', view: 'subscribed', status: 200, message: outcome.message, notice: outcome.message };
}

// What an unsubscribe page shows, decided on the server (so both pages work with JavaScript off):
// a GET only looks the transaction up; a form POST makes the change and renders its result.
import type { AstroGlobal } from 'astro';
import type { AnswerOf } from '../contract/client.ts';

/**
 * The two calls of the page bridge (src/server/page-bridge.ts) these pages make, typed here on the shared
 * side: the form POST's outcome is the JSON call's answer, or the Error state's message.
 */
export interface SubscriptionBridge {
  /** GET: whether the link names a transaction; changes nothing. */
  isKnownTransaction(transactionId: string): Promise<boolean>;
  /** The form POST (JavaScript off). */
  changeSubscription(transactionId: string, action: 'unsubscribe' | 'resubscribe'): Promise<SubscriptionOutcome>;
}

export type SubscriptionOutcome = ({ ok: true } & AnswerOf<'POST /v1/unsubscribe'>) | { ok: false; message: string };

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
  bridge: SubscriptionBridge,
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

/** What the pages' component (src/components/UnsubscribePage.astro) renders. */
export interface SubscriptionCard {
  transactionId: string;
  view: SubscriptionView;
  message: string;
  notice: string | null;
  /** The page answers the form's POST (JavaScript off). */
  posted: boolean;
}

/**
 * Both pages' server side: the redirect to answer with, or the card to render, its status set and the
 * page kept out of caches (each visit shows the subscription as it is now).
 */
export async function openSubscriptionPage(astro: AstroGlobal): Promise<Response | SubscriptionCard> {
  const transactionId = astro.params.transactionId ?? '';
  const page = await subscriptionPage(astro.locals.bridge!, astro.request, transactionId);
  if (page.kind === 'redirect') return astro.redirect(page.url, 303);
  astro.response.status = page.status;
  astro.response.headers.set('Cache-Control', 'no-store');
  return {
    transactionId,
    view: page.view,
    message: page.message,
    notice: page.notice,
    posted: astro.request.method === 'POST',
  };
}

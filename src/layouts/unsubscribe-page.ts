// Behaviour of the unsubscribe pages in plain DOM code (a public page ships no framework; budget
// 2 KB of JS): the forms become POST /v1/unsubscribe and /v1/resubscribe calls (docs/console-reports.md §7),
// a returned redirect is followed (§4), a failure shows the Error state (§8), and the header
// variant unsubscribes once on load (§2). Alerts vanish after 2 s (§9); the Error heading stays.
import type { AnswerOf, BodyOf } from '../contract/client.ts';
import type { ApiErrorBody } from '../lib/api.ts';
import { ALERT_MS, REQUEST_TIMEOUT_MS } from '../lib/timings.ts';

type Call = 'unsubscribe' | 'resubscribe';
/** Either call's answer, typed from the contract (plain fetch: the page ships no client); a refusal's error. */
type Answer = Partial<AnswerOf<`POST /v1/${Call}`>> & ApiErrorBody;

export function subscriptionPage(root: HTMLElement): void {
  const pick = (testId: string) => root.querySelector<HTMLElement>(`[data-testid=${testId}]`)!;
  const show = (view: string) => {
    root.dataset.state = view;
    for (const s of root.querySelectorAll<HTMLElement>('[data-view]')) s.hidden = s.dataset.view !== view;
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flash = (alert: HTMLElement, message?: string) => {
    if (message !== undefined) alert.textContent = message;
    alert.hidden = false;
    clearTimeout(timer);
    timer = setTimeout(() => (alert.hidden = true), ALERT_MS);
  };
  const run = async (call: Call, button: HTMLButtonElement) => {
    button.disabled = true;
    button.classList.add('is-loading');
    let error = 'Error';
    try {
      const res = await fetch(`/v1/${call}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        // the card always renders data-transaction-id
        body: JSON.stringify({ transaction_id: root.dataset.transactionId! } satisfies BodyOf<`POST /v1/${Call}`>),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const body = (await res.json()) as Answer;
      if (res.ok) {
        const next = body.redirect ? new URL(body.redirect, location.href) : null;
        if (next && /^https?:$/.test(next.protocol)) return location.assign(next.href);
        const notice = pick('subscription-notice');
        if (call === 'resubscribe') flash(notice, body.message);
        else notice.hidden = true;
        return show(call === 'unsubscribe' ? 'unsubscribed' : 'subscribed');
      }
      error = body.error?.message || error;
    } catch {
      // unreachable server or not JSON: the plain 'Error'
    } finally {
      button.disabled = false;
      button.classList.remove('is-loading');
    }
    flash(pick('subscription-error'), error);
    show('error');
  };
  for (const form of root.querySelectorAll<HTMLFormElement>('form[data-call]')) {
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void run(form.dataset.call as Call, form.querySelector('button')!);
    });
  }
  if (root.dataset.state === 'error') flash(pick('subscription-error'));
  if (root.dataset.auto) void run('unsubscribe', pick('unsubscribe-button') as HTMLButtonElement);
}

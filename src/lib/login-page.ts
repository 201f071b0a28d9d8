// Behaviour of /login in plain DOM code: a public page ships no framework (budget: 2 KB of JS).

import type { AnswerOf, BodyOf } from '../contract/client.ts';
import type { ApiErrorBody } from './api.ts';
import { safeNextPath } from './next-path.ts';

/** The page's two calls, typed from the contract (plain fetch: the page ships no client). */
type PageCall = 'POST /v1/auth/login' | 'POST /v1/auth/initiate-challenge';

const post = <K extends PageCall>(key: K, body: BodyOf<K>) =>
  fetch(key.slice('POST '.length), {
    method: 'POST',
    credentials: 'include',
    headers: { 'Content-Type': 'application/json', 'Request-Type': 'ui', Accept: 'application/json' },
    body: JSON.stringify(body),
  });

/** Email and password sign-in (POST /v1/auth/login); on success goes to / or /{url}. */
export function signIn(form: HTMLFormElement): void {
  const error = form.querySelector<HTMLElement>('[data-testid=login-error]')!;
  const button = form.querySelector<HTMLButtonElement>('button[type=submit]')!;
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const email = (form.elements.namedItem('email') as HTMLInputElement).value.trim();
    const password = (form.elements.namedItem('password') as HTMLInputElement).value;
    error.hidden = true;
    if (!email || !password) {
      error.textContent = 'Enter your email and password.';
      error.hidden = false;
      return;
    }
    button.disabled = true;
    button.classList.add('is-loading');
    let message = 'Unable to sign in. Please try again.';
    try {
      const res = await post('POST /v1/auth/login', { email, password });
      if (res.ok) {
        window.location.assign(safeNextPath(form.dataset.next));
        return;
      }
      message = ((await res.json()) as ApiErrorBody).error?.message ?? message;
    } catch {
      // network failure: the generic message
    }
    error.textContent = message;
    error.hidden = false;
    button.disabled = false;
    button.classList.remove('is-loading');
  });
}

/**
 * The login challenge (docs/console-reports.md §2): posts {installUrl, redirect} and follows the returned
 * redirectUrl; on failure goes back to install_url, but only when it is the configured parent
 * platform, so the page cannot be used as an open redirect.
 */
export function startChallenge(data: DOMStringMap): void {
  const installUrl = data.installUrl ?? '';
  let fallback = '/unauthorized';
  try {
    if (data.parentOrigin && new URL(installUrl).origin === data.parentOrigin) fallback = installUrl;
  } catch {
    // not a URL: stay on our own error page
  }
  post('POST /v1/auth/initiate-challenge', { installUrl, redirect: data.redirect || null })
    .then(async (res) => {
      if (!res.ok) throw new Error(String(res.status));
      window.location.assign(((await res.json()) as AnswerOf<'POST /v1/auth/initiate-challenge'>).redirectUrl);
    })
    .catch(() => window.location.assign(fallback));
}

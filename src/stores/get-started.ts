// GET v1/get-started for the getting-started page (docs/console.md §2, §7), and the action that adds a
// domain from its modal (POST v1/domains: the answer is a messages list, 'Domain Created' on success).
import { atom } from 'nanostores';
import type { ApiCredentials, SmtpCredentials } from '../lib/wire.ts';
import { type ApiErrorBody, call } from '../lib/api.ts';
import { FetchError } from 'ofetch';

export interface DomainSummary {
  domain_id: number;
  domain_domain: string;
  domain_sending_verified: 'yes' | 'no';
}

export interface GetStarted {
  domains: DomainSummary[];
  apiCredentials: ApiCredentials;
  smtpCredentials: SmtpCredentials;
  isReseller: boolean;
}

export type GetStartedState = { status: 'loading' } | { status: 'failed' } | ({ status: 'loaded' } & GetStarted);

export const getStarted = atom<GetStartedState>({ status: 'loading' });

export async function loadGetStarted(): Promise<void> {
  try {
    const data = await call('GET /v1/get-started');
    getStarted.set({ status: 'loaded', ...data });
  } catch {
    if (getStarted.get().status !== 'loaded') getStarted.set({ status: 'failed' });
  }
}

export const DOMAIN_CREATED = 'Domain Created';

/**
 * POST v1/domains; resolves with the answer's messages (docs/console.md §8: anything but 'Domain Created' is an error).
 */
export async function createDomain(domain: string, email: string): Promise<string[]> {
  try {
    const answer = await call('POST /v1/domains', { body: { domain_url: domain, domain_verification_email: email } });
    if (answer.messages.includes(DOMAIN_CREATED)) void loadGetStarted();
    return answer.messages;
  } catch (err) {
    const body =
      err instanceof FetchError ? (err.data as (ApiErrorBody & { messages?: string[] }) | undefined) : undefined;
    return body?.messages ?? [body?.error?.message ?? 'The domain could not be added. Try again.'];
  }
}

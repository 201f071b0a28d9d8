import { useEffect } from 'react';
import { publicApi } from '../lib/api.ts';

/**
 * The login challenge (spec part two §2): posts {installUrl, redirect} and follows the returned
 * redirectUrl; on failure goes back to install_url, but only when it is the configured parent
 * platform, so the page cannot be used as an open redirect.
 */
export default function ChallengeLoader({ installUrl, redirect, parentOrigin }: { installUrl: string; redirect: string | null; parentOrigin: string | null }) {
  useEffect(() => {
    let fallback = '/unauthorized';
    try {
      if (parentOrigin && new URL(installUrl).origin === parentOrigin) fallback = installUrl;
    } catch {
      // not a URL: stay on our own error page
    }
    publicApi<{ redirectUrl: string }>('v1/auth/initiate-challenge', { method: 'POST', body: { installUrl, redirect } })
      .then(({ redirectUrl }) => window.location.assign(redirectUrl))
      .catch(() => window.location.assign(fallback));
  }, [installUrl, redirect, parentOrigin]);
  return null;
}

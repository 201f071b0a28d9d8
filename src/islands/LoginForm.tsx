import { type FormEvent, useState } from 'react';
import { errorMessage, publicApi } from '../lib/api.ts';
import { safeNextPath } from '../lib/next-path.ts';

/** Email and password sign-in (POST /v1/auth/login); on success goes to / or /{url}. */
export default function LoginForm({ next }: { next: string | null }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await publicApi('v1/auth/login', { method: 'POST', body: { email, password } });
      window.location.assign(safeNextPath(next));
    } catch (err) {
      setError(errorMessage(err, 'Unable to sign in. Please try again.'));
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} noValidate data-testid="login-form">
      <div className="field">
        <label className="label" htmlFor="email">Email</label>
        <div className="control">
          <input id="email" className="input" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </div>
      </div>
      <div className="field">
        <label className="label" htmlFor="password">Password</label>
        <div className="control">
          <input id="password" className="input" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </div>
      </div>
      {error && <p className="help is-danger mb-3" role="alert" data-testid="login-error">{error}</p>}
      <button type="submit" className={`button is-primary is-fullwidth${busy ? ' is-loading' : ''}`} disabled={busy || !email || !password}>
        Sign in
      </button>
    </form>
  );
}

// What the scripts that start the built service on a fresh embedded database share: a data
// directory with the environment and admin CLI that go with it, and a console sign-in. The port
// and the start itself are the harness's (scripts/lib/service-harness.mjs).
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A fresh PGlite data directory (in the system's temp folder, named after `prefix`), the service's
 * environment on it (no DATABASE_URL, secret or roles inherited from the caller), and `admin(args)`,
 * which runs dist/admin.mjs there and returns what it printed (throws when it fails).
 */
export function embeddedService(root, prefix, admin) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    TRANSACT_ADMIN_EMAIL: admin.email,
    TRANSACT_ADMIN_PASSWORD: admin.password,
  };
  delete env.DATABASE_URL;
  delete env.TRANSACT_SECRET;
  delete env.ROLES;
  const run = (args) => {
    const res = spawnSync(process.execPath, [path.join(root, 'dist/admin.mjs'), ...args], {
      cwd: root,
      env,
      encoding: 'utf8',
    });
    if (res.status !== 0) throw new Error(`admin ${args.slice(0, 2).join(' ')} failed: ${res.stderr || res.stdout}`);
    return res.stdout;
  };
  return { dataDir, env, admin: run };
}

/** Signs `user` in through the console's call; returns the console's headers with the session cookie. */
export async function signIn(base, user) {
  const ui = { 'Content-Type': 'application/json', 'Request-Type': 'ui', Origin: base };
  const login = await fetch(`${base}/v1/auth/login`, { method: 'POST', headers: ui, body: JSON.stringify(user) });
  if (!login.ok) throw new Error(`sign-in failed: ${login.status} ${await login.text()}`);
  return {
    ...ui,
    Cookie: login.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; '),
  };
}

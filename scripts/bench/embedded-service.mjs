// What the scripts that start the built service on a fresh embedded database share: a free port,
// and a data directory with the environment and admin CLI that go with it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const freePort = () =>
  new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/**
 * A fresh PGlite data directory (in the system's temp folder, named after `prefix`), the service's
 * environment on it (no DATABASE_URL, secret or roles inherited from the caller), and `admin(args)`,
 * which runs dist/admin.mjs there and returns what it printed (throws when it fails).
 */
export function embeddedService(root, prefix, admin) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  const env = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', TRANSACT_ADMIN_EMAIL: admin.email, TRANSACT_ADMIN_PASSWORD: admin.password };
  delete env.DATABASE_URL;
  delete env.TRANSACT_SECRET;
  delete env.ROLES;
  const run = (args) => {
    const res = spawnSync(process.execPath, [path.join(root, 'dist/admin.mjs'), ...args], { cwd: root, env, encoding: 'utf8' });
    if (res.status !== 0) throw new Error(`admin ${args.slice(0, 2).join(' ')} failed: ${res.stderr || res.stdout}`);
    return res.stdout;
  };
  return { dataDir, env, admin: run };
}

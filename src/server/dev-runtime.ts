// The service as `astro dev` runs it (loaded through Vite by src/integrations/dev-api.ts): one
// context for the dev server's lifetime, the Hono app as a Node listener, and the page bridge.
import { getRequestListener } from '@hono/node-server';
import { bootstrapAdmin } from './accounts/accounts.service.ts';
import { loadConfig } from './core/config.ts';
import { createContext } from './create-context.ts';
import { lockDataDir } from './db/data-lock.ts';
import { createApi } from './app.ts';
import { areaOf } from './server.ts';
import { createPageBridge } from './page-bridge.ts';

export async function startDevRuntime() {
  const config = loadConfig();
  if (!config.databaseUrl) lockDataDir(config.dataPath, { role: 'astro dev', port: config.port });
  const { ctx } = await createContext(config);
  const boot = await bootstrapAdmin(ctx);
  if (boot.generatedPassword) console.log(`First administrator: ${boot.email} / ${boot.generatedPassword}`);
  return { area: areaOf, api: getRequestListener(createApi(ctx).fetch), bridge: createPageBridge(ctx) };
}

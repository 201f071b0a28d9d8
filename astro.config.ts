// Astro renders every console and public page on the server (output: 'server'); the Node adapter
// builds a middleware-mode handler that src/server/http/server.ts mounts behind the API dispatch.
// In `astro dev` the devApi integration mounts the same Hono app into Vite's server.
import node from '@astrojs/node';
import react from '@astrojs/react';
import { defineConfig } from 'astro/config';
import devApi from './src/integrations/dev-api.ts';

export default defineConfig({
  output: 'server',
  adapter: node({ mode: 'middleware' }),
  integrations: [react(), devApi()],
  server: { port: Number(process.env.PORT ?? 4321) },
  devToolbar: { enabled: false },
  build: { inlineStylesheets: 'never' },
  vite: {
    css: { preprocessorOptions: { scss: { quietDeps: true } } },
  },
});

// Astro renders every console and public page on the server (output: 'server'); the Node adapter
// builds a middleware-mode handler that src/server/server.ts mounts behind the API dispatch.
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
    build: {
      rollupOptions: {
        output: {
          // The code every console page runs at load in one file instead of a dozen of a few hundred
          // bytes (each compressed on its own; bench:pages): the libraries, the stores every page
          // reads (the side menu's among them) and the common components. timings.ts stays apart:
          // the public pages' scripts import it, and must not load the console's libraries (≤ 2 KiB).
          codeSplitting: {
            groups: [
              { name: 'timings', test: /src[\\/]lib[\\/]timings\.ts/, priority: 2 },
              // the group report pages' own modules in one file rather than four of a few hundred bytes
              {
                name: 'reports',
                priority: 0,
                test: /src[\\/]lib[\\/](group-report|abbreviate)\.ts|src[\\/]stores[\\/]group-report\.ts/,
              },
              {
                name: 'console-core',
                priority: 1,
                test: /node_modules[\\/](dayjs|ofetch|destr|ufo|nanostores|@nanostores)[\\/]|node_modules[\\/]react[\\/](jsx-runtime\.js|cjs[\\/]react-jsx-runtime)|src[\\/]lib[\\/](api|dates|numbers|island-hooks)\.ts|src[\\/]stores[\\/](alerts|date-range|dashboard|transactions|menu)\.ts|src[\\/]components[\\/]TableStatusRows\.tsx/,
              },
            ],
          },
        },
      },
    },
  },
});

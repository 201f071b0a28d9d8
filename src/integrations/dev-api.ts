// `astro dev` serves the API too: this integration loads the service through Vite (so TypeScript
// and edits just work), hands /v1/*, /t/* and the operations paths to the Hono app, and gives pages
// the same `locals.bridge` the production server gives them.
import type { AstroIntegration } from 'astro';
import type { IncomingMessage, ServerResponse } from 'node:http';

const LOCALS = Symbol.for('astro.locals');

export default function devApi(): AstroIntegration {
  return {
    name: 'transact-dev-api',
    hooks: {
      'astro:server:setup': ({ server }) => {
        let runtime:
          | Promise<{ area(url: string): string; api(req: IncomingMessage, res: ServerResponse): void; bridge: object }>
          | undefined;
        server.middlewares.use((req, res, next) => {
          runtime ??= server.ssrLoadModule('/src/server/dev-runtime.ts').then((m) => m.startDevRuntime());
          runtime
            .then((rt) => {
              if (rt.area(req.url ?? '/') === 'api') return rt.api(req, res);
              Reflect.set(req, LOCALS, { bridge: rt.bridge });
              next();
            })
            .catch(next);
        });
      },
    },
  };
}

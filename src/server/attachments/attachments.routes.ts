// The console's tracked-attachment calls (docs/console-reports.md §7 "Tracked attachments"):
//   POST   /v1/tracked-attachments/groups                     multipart: group (JSON), asset (file, optional)
//   GET    /v1/tracked-attachments/groups?page&limit&name     data[] + pagination
//   GET    /v1/tracked-attachments/groups/{id}
//   PATCH  /v1/tracked-attachments/groups/{id}                JSON, partial
//   DELETE /v1/tracked-attachments/groups/{id}
//   POST   /v1/tracked-attachments/groups/{id}/assets         multipart: asset (streamed, no timeout)
//   DELETE /v1/tracked-attachments/groups/{id}/assets/{assetId}
//   POST   /v1/tracked-attachments/branding                   multipart: settings (JSON), asset (logo, optional)
//   GET    /v1/tracked-attachments/branding, GET …/branding/logo, DELETE …/branding/logo
// The console calls them with its session (and CSRF protection), an application with the account's
// API key (Bearer or Basic). Ids are checked against that customer.
import { Readable } from 'node:stream';
import { Hono } from 'hono';
import { z } from 'zod';
import * as contract from '../../contract/templates.ts';
import type { AppContext } from '../core/context.ts';
import { DomainError } from '../core/errors.ts';
import { type KeyOrSessionEnv, sessionOrApiKey } from '../http/api-key.ts';
import { contractRoutes } from '../http/contract-route.ts';
import { jsonBody } from '../http/validate.ts';
import * as service from './attachments.service.ts';
import { readMultipart } from './multipart.ts';

export function attachmentRoutes(ctx: AppContext): Hono<KeyOrSessionEnv> {
  const app = new Hono<KeyOrSessionEnv>();
  const serve = contractRoutes(app, '/v1');
  const guard = [sessionOrApiKey(ctx)];

  serve(contract.createLink, guard, async (c) => {
    const customerId = c.get('customerId');
    const stored: service.Stored[] = [];
    try {
      const { fields } = await readMultipart(
        c,
        async (file, fieldsSoFar) => {
          // the group JSON comes first, so a bad one is refused before a large file is read
          service.parseGroupInput(fieldsSoFar.group);
          const s = await service.uploadHandler(ctx)(file);
          stored.push(s);
          return s;
        },
        { files: 1 },
      );
      const group = await service.createGroup(ctx, customerId, service.parseGroupInput(fields.group), stored);
      return c.json(group, 201);
    } catch (err) {
      await service.discard(
        ctx,
        stored.map((s) => s.key),
      );
      throw err;
    }
  });

  serve(contract.listLinks, guard, async (c, { query: q }) => {
    const customerId = c.get('customerId');
    c.header('Cache-Control', 'no-store');
    return c.json(await service.listGroups(ctx, customerId, q));
  });

  serve(contract.getLink, guard, async (c, { params }) => {
    const customerId = c.get('customerId');
    c.header('Cache-Control', 'no-store');
    return c.json(await service.getGroup(ctx, customerId, params.id));
  });

  // the id is checked before the body (an unknown link is 404 whatever the body)
  serve(contract.updateLink, guard, async (c, { params }) => {
    const customerId = c.get('customerId');
    const id = params.id;
    const input = await jsonBody(c, z.unknown());
    return c.json(await service.updateGroup(ctx, customerId, id, service.checkGroupInput(input)));
  });

  serve(contract.deleteLink, guard, async (c, { params }) => {
    const customerId = c.get('customerId');
    await service.deleteGroup(ctx, customerId, params.id);
    // docs/console-reports.md §8: the message defined for group deletion
    return c.json({ message: 'Template deleted successfully' });
  });

  serve(contract.addFiles, guard, async (c, { params }) => {
    const customerId = c.get('customerId');
    const id = params.id;
    // refuse another customer's (or no) group before reading the file
    await service.getGroup(ctx, customerId, id);
    const stored: service.Stored[] = [];
    try {
      await readMultipart(
        c,
        async (file) => {
          const s = await service.uploadHandler(ctx)(file);
          stored.push(s);
          return s;
        },
        { files: 20 },
      );
      if (stored.length === 0)
        throw new DomainError('validation_failed', "Send the file in the multipart field 'asset'");
      const assets = await service.addAssets(ctx, customerId, id, stored);
      return c.json({ assets }, 201);
    } catch (err) {
      await service.discard(
        ctx,
        stored.map((s) => s.key),
      );
      throw err;
    }
  });

  serve(contract.deleteFile, guard, async (c, { params }) => {
    const customerId = c.get('customerId');
    await service.deleteAsset(ctx, customerId, params.id, params.assetId);
    return c.json({ message: 'File deleted' });
  });

  serve(contract.getBranding, guard, async (c) => {
    const customerId = c.get('customerId');
    c.header('Cache-Control', 'no-store');
    return c.json(await service.getBranding(ctx, customerId));
  });

  serve(contract.saveBranding, guard, async (c) => {
    const customerId = c.get('customerId');
    let logo: { key: string; name: string; type: string } | null = null;
    try {
      const { fields } = await readMultipart(
        c,
        async (file, fieldsSoFar) => {
          if (fieldsSoFar.settings !== undefined) service.parseBrandingInput(fieldsSoFar.settings);
          if (file.field !== 'asset')
            throw new DomainError(
              'validation_failed',
              `Unexpected file field '${file.field}'; send the logo as 'asset'`,
            );
          logo = await service.storeLogo(ctx, file);
          return logo;
        },
        { files: 1 },
      );
      const settings = service.parseBrandingInput(fields.settings);
      const saved = await service.saveBranding(ctx, customerId, settings, logo);
      return c.json({ ...saved, message: 'Branding settings saved successful' });
    } catch (err) {
      if (logo) await service.discard(ctx, [(logo as { key: string }).key]);
      throw err;
    }
  });

  serve(contract.getLogo, guard, async (c) => {
    const customerId = c.get('customerId');
    const logo = await service.brandingLogo(ctx, customerId);
    if (!logo) throw new DomainError('not_found', 'There is no logo');
    return new Response(Readable.toWeb(logo.body) as ReadableStream, {
      headers: { 'Content-Type': logo.type, 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'private, no-cache' },
    });
  });

  serve(contract.deleteLogo, guard, async (c) => {
    const customerId = c.get('customerId');
    await service.deleteLogo(ctx, customerId);
    return c.json({ message: 'Logo successfully deleted' });
  });

  return app;
}

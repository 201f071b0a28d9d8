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
// Console calls: a session and CSRF protection. Ids are checked against the signed-in customer.
import { Readable } from 'node:stream';
import { Hono } from 'hono';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { type ApiEnv, csrfGuard, requireSession, sessionOf } from '../http/middleware.ts';
import { check, jsonBody } from '../http/validate.ts';
import * as service from './attachments.service.ts';
import { findBranding } from './attachments.repository.ts';
import { readMultipart } from './multipart.ts';

const idParam = (value: string): number => {
  if (!/^\d{1,15}$/.test(value)) throw new ApiError('not_found', 'No such download link');
  return Number(value);
};

const listQuery = z.strictObject({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(service.PAGE_SIZE),
  name: z.string().max(200).default(''),
});

export function attachmentRoutes(ctx: AppContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const guard = [requireSession, csrfGuard(ctx)] as const;
  const base = '/tracked-attachments';

  app.post(`${base}/groups`, ...guard, async (c) => {
    const { customerId } = sessionOf(c);
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
      await service.discard(ctx, stored.map((s) => s.key));
      throw err;
    }
  });

  app.get(`${base}/groups`, ...guard, async (c) => {
    const { customerId } = sessionOf(c);
    const q = check(listQuery, c.req.query());
    c.header('Cache-Control', 'no-store');
    return c.json(await service.listGroups(ctx, customerId, q));
  });

  app.get(`${base}/groups/:id`, ...guard, async (c) => {
    const { customerId } = sessionOf(c);
    c.header('Cache-Control', 'no-store');
    return c.json(await service.getGroup(ctx, customerId, idParam(c.req.param('id'))));
  });

  app.patch(`${base}/groups/:id`, ...guard, async (c) => {
    const { customerId } = sessionOf(c);
    const id = idParam(c.req.param('id'));
    const input = await jsonBody(c, z.unknown());
    return c.json(await service.updateGroup(ctx, customerId, id, service.checkGroupInput(input)));
  });

  app.delete(`${base}/groups/:id`, ...guard, async (c) => {
    const { customerId } = sessionOf(c);
    await service.deleteGroup(ctx, customerId, idParam(c.req.param('id')));
    return c.json({ message: 'Template deleted successfully' }); // docs/console-reports.md §8: the message defined for group deletion
  });

  app.post(`${base}/groups/:id/assets`, ...guard, async (c) => {
    const { customerId } = sessionOf(c);
    const id = idParam(c.req.param('id'));
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
      if (stored.length === 0) throw new ApiError('validation_failed', "Send the file in the multipart field 'asset'");
      const assets = await service.addAssets(ctx, customerId, id, stored);
      return c.json({ assets }, 201);
    } catch (err) {
      await service.discard(ctx, stored.map((s) => s.key));
      throw err;
    }
  });

  app.delete(`${base}/groups/:id/assets/:assetId`, ...guard, async (c) => {
    const { customerId } = sessionOf(c);
    const assetId = c.req.param('assetId');
    if (!/^\d{1,15}$/.test(assetId)) throw new ApiError('not_found', 'No such file');
    await service.deleteAsset(ctx, customerId, idParam(c.req.param('id')), Number(assetId));
    return c.json({ message: 'File deleted' });
  });

  app.get(`${base}/branding`, ...guard, async (c) => {
    const { customerId } = sessionOf(c);
    c.header('Cache-Control', 'no-store');
    return c.json(await service.getBranding(ctx, customerId));
  });

  app.post(`${base}/branding`, ...guard, async (c) => {
    const { customerId } = sessionOf(c);
    let logo: { key: string; name: string; type: string } | null = null;
    try {
      const { fields } = await readMultipart(
        c,
        async (file, fieldsSoFar) => {
          if (fieldsSoFar.settings !== undefined) service.parseBrandingInput(fieldsSoFar.settings);
          if (file.field !== 'asset') throw new ApiError('validation_failed', `Unexpected file field '${file.field}'; send the logo as 'asset'`);
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

  app.get(`${base}/branding/logo`, ...guard, async (c) => {
    const { customerId } = sessionOf(c);
    const row = await findBranding(ctx.db, customerId);
    const body = row?.logo_key ? await ctx.storage.get(row.logo_key) : undefined;
    if (!row?.logo_type || !body) throw new ApiError('not_found', 'There is no logo');
    return new Response(Readable.toWeb(body) as ReadableStream, {
      headers: { 'Content-Type': row.logo_type, 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'private, no-cache' },
    });
  });

  app.delete(`${base}/branding/logo`, ...guard, async (c) => {
    const { customerId } = sessionOf(c);
    await service.deleteLogo(ctx, customerId);
    return c.json({ message: 'Logo successfully deleted' });
  });

  return app;
}

// A sent message's attachments (contract/resend-attachments.ts): listed and read with the API key
// under /resend, and downloaded by the signed URL those answers carry, without a key, under /v1.
import { create as contentDisposition } from 'content-disposition';
import { Hono } from 'hono';
import * as contract from '../../contract/resend-attachments.ts';
import type { AppContext } from '../core/context.ts';
import { type ApiKeyEnv, apiKeyAuth } from '../http/api-key.ts';
import { contractRoutes } from '../http/contract-route.ts';
import { downloadAttachment, getAttachment, listAttachments } from './email-attachments.service.ts';

export function emailAttachmentRoutes(ctx: AppContext): Hono<ApiKeyEnv> {
  const app = new Hono<ApiKeyEnv>();
  const serve = contractRoutes(app, '');
  const auth = [apiKeyAuth(ctx)];

  serve(contract.resendListAttachments, auth, async (c, { params, query }) =>
    c.json(await listAttachments(ctx, c.get('customerId'), params.email_id, query), 200),
  );
  serve(contract.resendGetAttachment, auth, async (c, { params }) =>
    c.json(await getAttachment(ctx, c.get('customerId'), params.email_id, params.id), 200),
  );
  // the customer's bytes, from our origin: always a download, never rendered here
  serve(contract.downloadAttachment, [], async (_c, { params, query }) => {
    const file = await downloadAttachment(ctx, params.email_id, params.id, query);
    return new Response(new Uint8Array(file.bytes), {
      headers: {
        'Content-Type': 'application/octet-stream',
        'Content-Length': String(file.bytes.length),
        'Content-Disposition': contentDisposition(file.filename),
        'Content-Security-Policy': "default-src 'none'; sandbox",
        'Cache-Control': 'private, no-store',
        'X-Content-Type-Options': 'nosniff',
      },
    });
  });
  return app;
}

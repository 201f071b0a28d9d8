// Received mail by API (contract/resend-receiving.ts): Resend's receiving calls with the API key,
// and the signed download links they hand out, which need no key (the signature is the check).
import { Readable } from 'node:stream';
import { create as contentDisposition } from 'content-disposition';
import { Hono } from 'hono';
import * as contract from '../../contract/resend-receiving.ts';
import type { AppContext } from '../core/context.ts';
import { type ApiKeyEnv, apiKeyAuth } from '../http/api-key.ts';
import { contractRoutes } from '../http/contract-route.ts';
import {
  getReceived,
  getReceivedAttachment,
  listReceived,
  listReceivedAttachments,
  openReceivedFile,
} from './inbound.service.ts';

/** /resend/emails/receiving/*: mount before the /resend/emails/{id} calls, which would take `receiving` as an id. */
export function receivingRoutes(ctx: AppContext): Hono<ApiKeyEnv> {
  const app = new Hono<ApiKeyEnv>();
  const serve = contractRoutes(app, '/resend');
  const auth = [apiKeyAuth(ctx)];
  serve(contract.resendListReceived, auth, async (c, { query }) =>
    c.json(await listReceived(ctx, c.get('customerId'), query), 200),
  );
  serve(contract.resendGetReceived, auth, async (c, { params }) =>
    c.json(await getReceived(ctx, c.get('customerId'), params.id), 200),
  );
  serve(contract.resendListReceivedAttachments, auth, async (c, { params }) =>
    c.json(await listReceivedAttachments(ctx, c.get('customerId'), params.id), 200),
  );
  serve(contract.resendGetReceivedAttachment, auth, async (c, { params }) =>
    c.json(await getReceivedAttachment(ctx, c.get('customerId'), params.id, params.attachmentId), 200),
  );
  return app;
}

/** /v1/received-files/{id}/{file}: the raw message or an attachment, as a download. */
export function receivedFileRoutes(ctx: AppContext): Hono {
  const app = new Hono();
  const serve = contractRoutes(app, '');
  serve(contract.getReceivedFile, [], async (_c, { params, query }) => {
    const file = await openReceivedFile(ctx, { ...params, ...query });
    return new Response(Readable.toWeb(file.body) as ReadableStream, {
      headers: {
        'Content-Type': file.contentType,
        'Content-Length': String(file.size),
        'Content-Disposition': contentDisposition(file.filename),
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'no-store',
      },
    });
  });
  return app;
}

// A real local HTTP server receiving webhooks in tests: records every request (method, URL,
// headers, body) and answers with whatever `respond` says (status, headers, body, a delay).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** answer only after this many milliseconds */
  delayMs?: number;
  /** answer only once this settles (a test holds the answer while it looks at the page) */
  hold?: Promise<unknown>;
}

export interface WebhookReceiver {
  /** http://127.0.0.1:PORT */
  url: string;
  received: ReceivedRequest[];
  respond: (req: ReceivedRequest) => Reply;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const receiver: WebhookReceiver = {
    url: '',
    received: [],
    respond: () => ({ status: 200, body: 'ok' }),
    close: async () => {},
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const got = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      receiver.received.push(got);
      const reply = receiver.respond(got);
      const answer = () => {
        if (res.destroyed) return;
        res.writeHead(reply.status, reply.headers);
        res.end(reply.body ?? '');
      };
      if (reply.hold) void reply.hold.finally(answer);
      else if (reply.delayMs) setTimeout(answer, reply.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** The Standard Webhooks headers of a request, as the SDK's `webhooks.verify` takes them. */
export const webhookHeaders = (req: ReceivedRequest) => ({
  id: String(req.headers['webhook-id']),
  timestamp: String(req.headers['webhook-timestamp']),
  signature: String(req.headers['webhook-signature']),
});

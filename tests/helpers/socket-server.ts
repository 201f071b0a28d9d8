// The API served over a real socket, for clients that speak HTTP with fetch (the resend SDK).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { TestApp } from './app.ts';

export interface SocketServer {
  /** http://127.0.0.1:<port> */
  origin: string;
  close(): Promise<void>;
}

/** Listens on a free loopback port with the test app's API; close() drops every connection. */
export async function listenOnSocket(app: Pick<TestApp, 'api'>): Promise<SocketServer> {
  const server = createServer(getRequestListener(app.api.fetch));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

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

/** A loopback port free now (for a PUBLIC_URL that must name the socket the app will listen on). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Listens on a loopback port (free, or `port`) with the test app's API; close() drops every connection. */
export async function listenOnSocket(app: Pick<TestApp, 'api'>, port = 0): Promise<SocketServer> {
  const server = createServer(getRequestListener(app.api.fetch));
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

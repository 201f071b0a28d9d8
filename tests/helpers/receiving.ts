// What the tests of receiving mail (docs/receiving.md) start: a local DNS server, the app with the
// account's shop.example verified and receiving, the MX listener, the API on a socket with a `resend`
// client, and a nodemailer transport that sends to the listener as another mail server would.
import { Resend } from 'resend';
import { createTestApp, type TestAccount, type TestApp } from './app.ts';
import { startDnsServer, type DnsTestServer } from './dns-server.ts';
import { type MxSender, mxSender } from './mx-sender.ts';
import { freePort, listenOnSocket, type SocketServer } from './socket-server.ts';
import { addDomain, setDomainReceiving } from '../../src/server/domains/domains.service.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import { type BounceReceiver, startBounceReceiver } from '../../src/server/bounces/receiver.ts';

export interface Receiving {
  app: TestApp;
  dns: DnsTestServer;
  /** The MX listener. */
  receiver: BounceReceiver;
  /** The API on a socket, at PUBLIC_URL. */
  server: SocketServer;
  account: TestAccount;
  apiKey: string;
  /** The account's shop.example, verified and receiving. */
  shopId: number;
  /** The `resend` SDK with the account's key, at /resend. */
  resend: Resend;
  /** A transport to the MX listener from mail.sender.example; `dkim` signs as sender.example (selector s1). */
  mx(opts?: { dkim?: boolean }): ReturnType<MxSender['transport']>;
  /** Publishes sender.example's DKIM key and DMARC p=reject, and bank.example, whose mail never comes from here. */
  publishSenderPolicies(): void;
  close(): Promise<void>;
}

export { idOf } from './mx-sender.ts';

/** How many received messages the database holds. */
export async function countReceived(app: TestApp): Promise<number> {
  const row = await app.ctx.db
    .selectFrom('inbound_emails')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Starts it all; `extraEnv` adds or overrides settings. sender.example's SPF allows loopback from the
 * start; its other records are the test's (or `publishSenderPolicies`).
 */
export async function startReceiving(extraEnv: Record<string, string> = {}): Promise<Receiving> {
  const sender = mxSender();
  const dns = await startDnsServer();
  const port = await freePort();
  const app = await createTestApp({
    DNS_SERVERS: dns.address,
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
    ...extraEnv,
  });
  const account = await app.createAccount();
  const shop = await addDomain(app.ctx, account.customerId, 'shop.example', { verified: true });
  await setDomainReceiving(app.ctx, account.customerId, shop.id, { receiving: true });
  const apiKey = (await credentialsForConsole(app.ctx, account.customerId)).apiCredentials.apiKey;
  const receiver = await startBounceReceiver(app.ctx, { port: 0, host: '127.0.0.1' });
  const server = await listenOnSocket(app, port);
  const resend = new Resend(apiKey, { baseUrl: `${server.origin}/resend` });
  sender.publishSpf(dns);
  return {
    app,
    dns,
    receiver,
    server,
    account,
    apiKey,
    shopId: shop.id,
    resend,
    mx: (opts) => sender.transport(receiver.port, opts),
    publishSenderPolicies: () => sender.publishPolicies(dns),
    close: async () => {
      await server.close();
      await receiver.close();
      await app.close();
      await dns.close();
    },
  };
}

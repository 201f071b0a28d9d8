// What the tests of receiving mail (docs/receiving.md) start: a local DNS server, the app with the
// account's shop.example verified and receiving, the MX listener, the API on a socket with a `resend`
// client, and a nodemailer transport that sends to the listener as another mail server would.
import { generateKeyPairSync } from 'node:crypto';
import nodemailer from 'nodemailer';
import { Resend } from 'resend';
import { createTestApp, type TestAccount, type TestApp } from './app.ts';
import { startDnsServer, type DnsTestServer } from './dns-server.ts';
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
  mx(opts?: { dkim?: boolean }): ReturnType<typeof nodemailer.createTransport>;
  /** Publishes sender.example's DKIM key and DMARC p=reject, and bank.example, whose mail never comes from here. */
  publishSenderPolicies(): void;
  close(): Promise<void>;
}

/** The id of a received message in the listener's 250 reply. */
export const idOf = (response: string) => /Message received ([0-9a-f-]{36})/.exec(response)![1];

/**
 * Starts it all; `extraEnv` adds or overrides settings. sender.example's SPF allows loopback from the
 * start; its other records are the test's (or `publishSenderPolicies`).
 */
export async function startReceiving(extraEnv: Record<string, string> = {}): Promise<Receiving> {
  const dkimKeys = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
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
  dns.set('sender.example', 'TXT', ['v=spf1 ip4:127.0.0.1 -all']);
  return {
    app,
    dns,
    receiver,
    server,
    account,
    apiKey,
    shopId: shop.id,
    resend,
    mx: (opts = {}) =>
      nodemailer.createTransport({
        host: '127.0.0.1',
        port: receiver.port,
        secure: false,
        name: 'mail.sender.example',
        tls: { rejectUnauthorized: false },
        ...(opts.dkim
          ? { dkim: { domainName: 'sender.example', keySelector: 's1', privateKey: dkimKeys.privateKey } }
          : {}),
      }),
    publishSenderPolicies: () => {
      dns.set('s1._domainkey.sender.example', 'TXT', [`v=DKIM1; k=rsa; p=${dkimKeys.publicKey.toString('base64')}`]);
      dns.set('_dmarc.sender.example', 'TXT', ['v=DMARC1; p=reject']);
      dns.set('bank.example', 'TXT', ['v=spf1 ip4:192.0.2.1 -all']);
      dns.set('_dmarc.bank.example', 'TXT', ['v=DMARC1; p=reject']);
    },
    close: async () => {
      await server.close();
      await receiver.close();
      await app.close();
      await dns.close();
    },
  };
}

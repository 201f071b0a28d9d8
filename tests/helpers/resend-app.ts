// What the tests of the Resend-compatible surface start: the app, an account with its API key, the
// API on a socket and the official `resend` SDK pointed at it; optionally a second account with its
// own client, and delivery to a local SMTP sink by a running delivery worker.
import { Resend } from 'resend';
import { createTestApp, type TestAccount, type TestApp } from './app.ts';
import { listenOnSocket, type SocketServer } from './socket-server.ts';
import { startSmtpSink, type SmtpSink } from './smtp-sink.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import { DeliveryWorker } from '../../src/server/delivery/worker.ts';

export interface ResendAppOptions {
  /** Settings added to (or overriding) the defaults. */
  env?: Record<string, string>;
  /** Relay to an SMTP sink (RETURN_PATH_DOMAIN rp.transact.test) and run a delivery worker; on unless false. */
  delivery?: boolean;
  /** A second account, with its own client (`other`). */
  second?: boolean;
  /** Where the SDK sends: '/resend' (the default) or '/v1'. */
  path?: '/resend' | '/v1';
}

export interface ResendApp {
  app: TestApp;
  /** The SMTP sink mail is relayed to; with `delivery` only. */
  sink: SmtpSink | undefined;
  server: SocketServer;
  /** The SDK's base URL: the socket's origin and `path`. */
  baseUrl: string;
  account: TestAccount;
  apiKey: string;
  resend: Resend;
  /** With `second` only. */
  second: TestAccount | undefined;
  other: Resend | undefined;
  close(): Promise<void>;
}

/** Starts it all; domains are the test's to add. */
export async function startResendApp(opts: ResendAppOptions = {}): Promise<ResendApp> {
  const delivery = opts.delivery !== false;
  const sink = delivery ? await startSmtpSink() : undefined;
  const app = await createTestApp({
    ...(sink ? { SMTP_RELAY_URL: sink.url, RETURN_PATH_DOMAIN: 'rp.transact.test' } : {}),
    ...opts.env,
  });
  const account = await app.createAccount();
  const second = opts.second ? await app.createAccount() : undefined;
  const keyOf = async (a: TestAccount) => (await credentialsForConsole(app.ctx, a.customerId)).apiCredentials.apiKey;
  const apiKey = await keyOf(account);
  const server = await listenOnSocket(app);
  const baseUrl = `${server.origin}${opts.path ?? '/resend'}`;
  const other = second ? new Resend(await keyOf(second), { baseUrl }) : undefined;
  const worker = delivery ? new DeliveryWorker(app.ctx) : undefined;
  worker?.start();
  return {
    app,
    sink,
    server,
    baseUrl,
    account,
    apiKey,
    resend: new Resend(apiKey, { baseUrl }),
    second,
    other,
    close: async () => {
      await worker?.stop();
      await server.close();
      await sink?.close();
      await app.close();
    },
  };
}

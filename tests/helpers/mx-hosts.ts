// The far side of direct MX delivery in tests: SMTP servers on loopback addresses
// (127.0.0.2, 127.0.0.3, …) on one MX port, each with a switchable behaviour (accept, 421 at the
// greeting, a chosen reply to chosen recipients), STARTTLS or not, with a certificate from a test
// CA; and an HTTPS server with a certificate from the same CA serving MTA-STS policies by Host name.
import { writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { SMTPServer } from 'smtp-server';

export interface TestCa {
  key: string;
  cert: string;
  /** The CA's certificate in a file, for NODE_EXTRA_CA_CERTS. */
  file: string;
  /** A certificate and key for `names`, signed by this CA. */
  issue(names: string[]): Promise<{ key: string; cert: string }>;
}

export async function createTestCa(): Promise<TestCa> {
  const ca = await generate([{ name: 'commonName', value: 'Transact Test CA' }], {
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const file = join(tmpdir(), `transact-test-ca-${process.pid}-${Date.now()}.pem`);
  writeFileSync(file, ca.cert);
  return {
    key: ca.private,
    cert: ca.cert,
    file,
    async issue(names) {
      const leaf = await generate([{ name: 'commonName', value: names[0] }], {
        algorithm: 'sha256',
        ca: { key: ca.private, cert: ca.cert },
        extensions: [
          { name: 'basicConstraints', cA: false },
          { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
          { name: 'extKeyUsage', serverAuth: true },
          { name: 'subjectAltName', altNames: names.map((value) => ({ type: 2, value })) },
        ],
      });
      return { key: leaf.private, cert: leaf.cert };
    },
  };
}

export interface MxMessage {
  to: string[];
  raw: Buffer;
  secure: boolean;
}

export interface MxHost {
  address: string;
  messages: MxMessage[];
  /** 'accept', or '421': answer the greeting with 421 (a site telling us to slow down). */
  mode: 'accept' | '421';
  /** Replies to RCPT TO for chosen recipients: address → [code, text after the code]. */
  replies: Map<string, [number, string]>;
  /** Connections the host has seen (for the slow-down case: how hard we hit it). */
  connections: number;
  close(): Promise<void>;
}

/** An SMTP server on `address`:`port`; STARTTLS with `tls` (a CA-issued pair), or none. */
export async function startMxHost(
  address: string,
  port: number,
  opts: { tls?: { key: string; cert: string } } = {},
): Promise<MxHost> {
  const host: MxHost = {
    address,
    messages: [],
    mode: 'accept',
    replies: new Map(),
    connections: 0,
    close: async () => {},
  };
  const server = new SMTPServer({
    authOptional: true,
    logger: false,
    ...(opts.tls ? { key: opts.tls.key, cert: opts.tls.cert } : { disabledCommands: ['STARTTLS'] }),
    onConnect(_session, callback) {
      host.connections++;
      if (host.mode === '421')
        return callback(Object.assign(new Error('4.7.0 Too many connections, slow down'), { responseCode: 421 }));
      callback();
    },
    onRcptTo(rcpt, _session, callback) {
      const reply = host.replies.get(rcpt.address.toLowerCase());
      if (reply) return callback(Object.assign(new Error(reply[1]), { responseCode: reply[0] }));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        host.messages.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks),
          secure: session.secure,
        });
        callback(null);
      });
    },
  });
  server.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(port, address, () => resolve());
  });
  host.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return host;
}

export interface PolicyServer {
  port: number;
  /** Policy text served for `mta-sts.<domain>`; a missing one answers 404. */
  policies: Map<string, string>;
  /** Requests served, by host name. */
  fetches: Map<string, number>;
  close(): Promise<void>;
}

/** The HTTPS server of `mta-sts.<domain>` for every domain given, with a CA-issued certificate. */
export async function startPolicyServer(
  address: string,
  port: number,
  tls: { key: string; cert: string },
): Promise<PolicyServer> {
  const policies = new Map<string, string>();
  const fetches = new Map<string, number>();
  const server = https.createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    fetches.set(host, (fetches.get(host) ?? 0) + 1);
    const policy = policies.get(host);
    if (req.url !== '/.well-known/mta-sts.txt' || policy === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end(policy);
  });
  await new Promise<void>((resolve) => server.listen(port, address, () => resolve()));
  return {
    port,
    policies,
    fetches,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// Another mail server, sender.example, handing messages to the service's MX listener (docs/receiving.md):
// its nodemailer transport, its DNS records and the id the listener answers in its 250.
import { generateKeyPairSync } from 'node:crypto';
import nodemailer from 'nodemailer';
import type { DnsTestServer } from './dns-server.ts';

export interface MxSender {
  /** A transport to the listener on `port` from mail.sender.example; `dkim` signs as sender.example (s1). */
  transport(port: number, opts?: { dkim?: boolean }): ReturnType<typeof nodemailer.createTransport>;
  /** Publishes sender.example's SPF: mail from loopback passes. */
  publishSpf(dns: DnsTestServer): void;
  /** Publishes sender.example's DKIM key and DMARC p=reject, and bank.example, whose mail never comes from here. */
  publishPolicies(dns: DnsTestServer): void;
}

/** The id of a received message in the listener's 250 reply. */
export const idOf = (response: string) => /Message received ([0-9a-f-]{36})/.exec(response)![1];

/** A sender with a DKIM key of its own. */
export function mxSender(): MxSender {
  const dkimKeys = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return {
    transport: (port, opts = {}) =>
      nodemailer.createTransport({
        host: '127.0.0.1',
        port,
        secure: false,
        name: 'mail.sender.example',
        tls: { rejectUnauthorized: false },
        ...(opts.dkim
          ? { dkim: { domainName: 'sender.example', keySelector: 's1', privateKey: dkimKeys.privateKey } }
          : {}),
      }),
    publishSpf: (dns) => dns.set('sender.example', 'TXT', ['v=spf1 ip4:127.0.0.1 -all']),
    publishPolicies: (dns) => {
      dns.set('s1._domainkey.sender.example', 'TXT', [`v=DKIM1; k=rsa; p=${dkimKeys.publicKey.toString('base64')}`]);
      dns.set('_dmarc.sender.example', 'TXT', ['v=DMARC1; p=reject']);
      dns.set('bank.example', 'TXT', ['v=spf1 ip4:192.0.2.1 -all']);
      dns.set('_dmarc.bank.example', 'TXT', ['v=DMARC1; p=reject']);
    },
  };
}

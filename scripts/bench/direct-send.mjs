// The end-to-end ceiling for `npm run bench:send`: nodemailer's pool (the same pool settings the
// service's relay transport uses) sending composed messages of the same size straight into the sink,
// closed loop with a fixed number of messages in flight. Pinned to the service's core.
// Usage: node direct-send.mjs <sinkPort> <seconds> <inFlight> <htmlBytes> [dkim]
// With `dkim` (1) every message is DKIM-signed with a 2048-bit RSA key, as the service signs.
// Waits for 'go' over IPC, sends for <seconds>, then reports { sent, errors } and exits.
import nodemailer from 'nodemailer';

import { createPrivateKey, generateKeyPairSync } from 'node:crypto';

const [port, seconds, inFlight, htmlBytes, signed] = process.argv.slice(2).map(Number);
const dkim = signed
  ? {
      domainName: 'bench.example',
      keySelector: 'bench',
      // parsed once, as the service does (PEM text would be parsed again for every signature)
      privateKey: createPrivateKey(
        generateKeyPairSync('rsa', {
          modulusLength: 2048,
          privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
          publicKeyEncoding: { type: 'spki', format: 'pem' },
        }).privateKey,
      ),
    }
  : undefined;
const transport = nodemailer.createTransport({
  pool: true,
  maxConnections: 8,
  maxMessages: 500,
  host: '127.0.0.1',
  port,
  secure: false,
  ignoreTLS: true,
  name: 'bench.example',
  disableFileAccess: true,
  disableUrlAccess: true,
});
const { htmlBody } = await import('./message.mjs');
const html = htmlBody(htmlBytes);

let sent = 0;
let errors = 0;
let seq = 0;
let running = true;
function one() {
  const n = seq++;
  return transport
    .sendMail({
      envelope: { from: `bounces@bench.example`, to: ['someone@sink.example'] },
      messageId: `<direct-${process.pid}-${n}@bench.example>`,
      from: 'Bench <bench@bench.example>',
      to: 'someone@sink.example',
      subject: 'Benchmark message',
      html,
      dkim,
      disableFileAccess: true,
      disableUrlAccess: true,
    })
    .then(
      () => sent++,
      () => errors++,
    );
}
async function lane() {
  while (running) await one();
}

process.once('message', async () => {
  setTimeout(() => (running = false), seconds * 1000);
  await Promise.all(Array.from({ length: inFlight }, lane));
  transport.close();
  process.send({ sent, errors }, () => process.exit(0));
});
process.send('ready');

// The end-to-end ceiling for `npm run bench:send`: nodemailer's pool (the same pool settings the
// service's relay transport uses) sending composed messages of the same size straight into the sink,
// closed loop with a fixed number of messages in flight. Pinned to the service's core.
// Usage: node direct-send.mjs <sinkPort> <seconds> <inFlight> <htmlBytes>
// Waits for 'go' over IPC, sends for <seconds>, then reports { sent, errors } and exits.
import nodemailer from 'nodemailer';

const [port, seconds, inFlight, htmlBytes] = process.argv.slice(2).map(Number);
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

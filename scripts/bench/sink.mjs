// The delivery sink for `npm run bench:send`: an SMTP server (no AUTH, no STARTTLS) that counts
// every message it receives. Each arrival is stamped at the end of DATA with a wall-clock time in
// milliseconds (performance.timeOrigin + performance.now(), comparable across processes) and, when
// the envelope sender is a VERP address (bounces+<32hex>.<12hex>@…), the transaction uuid it names.
// Arrivals go to the parent over IPC in batches: { count, hits: [[uuid, t], …] }.
import { SMTPServer } from 'smtp-server';

const port = Number(process.argv[2]);
const VERP = /^bounces\+([0-9a-f]{32})\.[0-9a-f]{12}@/i;
const now = () => performance.timeOrigin + performance.now();

let count = 0;
let hits = [];
function flush() {
  if (count === 0 && hits.length === 0) return;
  process.send?.({ count, hits });
  count = 0;
  hits = [];
}
setInterval(flush, 10).unref();

const server = new SMTPServer({
  name: 'sink.localhost',
  banner: 'sink ESMTP',
  authOptional: true,
  disabledCommands: ['AUTH', 'STARTTLS'],
  logger: false,
  maxClients: 2000,
  socketTimeout: 60_000,
  onData(stream, session, callback) {
    stream.on('data', () => {});
    stream.on('end', () => {
      const t = now();
      count++;
      const m = VERP.exec(session.envelope.mailFrom ? session.envelope.mailFrom.address : '');
      if (m) {
        const id = m[1].toLowerCase();
        hits.push([`${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`, t]);
      }
      callback(null, '2.0.0 Stored');
    });
  },
});
server.on('error', () => {});
server.listen(port, '127.0.0.1', () => process.send?.('ready'));
process.on('SIGTERM', () => {
  flush();
  server.close(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0));

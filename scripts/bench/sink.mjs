// The delivery sink for `npm run bench:send`: the harness's SMTP receiver (no AUTH, no STARTTLS),
// counting every message it receives without reading it. Each arrival is stamped at the end of
// DATA with a wall-clock time in milliseconds (performance.timeOrigin + performance.now(),
// comparable across processes) and, when the envelope sender is a VERP address
// (bounces+<32hex>.<12hex>@…), the transaction uuid it names.
// Arrivals go to the parent over IPC in batches: { count, hits: [[uuid, t], …] }.
import { startSmtpSink, uuidFromVerp } from '../lib/service-harness.mjs';

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

const sink = await startSmtpSink({
  port: Number(process.argv[2]),
  keep: false,
  raw: false,
  dataReply: '2.0.0 Stored',
  smtp: {
    name: 'sink.localhost',
    banner: 'sink ESMTP',
    disabledCommands: ['AUTH', 'STARTTLS'],
    maxClients: 2000,
    socketTimeout: 60_000,
  },
  onMessage({ from }) {
    const t = now();
    count++;
    const uuid = uuidFromVerp(from);
    if (uuid) hits.push([uuid, t]);
  },
});
process.send?.('ready');
process.on('SIGTERM', () => {
  flush();
  sink.close().then(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0));

// The delivery sink of the benchmarks: the harness's SMTP receiver (no AUTH, no STARTTLS). Each
// arrival is stamped at the end of DATA with a wall-clock time in milliseconds
// (performance.timeOrigin + performance.now(), comparable across processes).
//
//   node sink.mjs PORT               `npm run bench:send`: counts every message without reading it,
//                                    and names the transaction uuid of a VERP envelope sender
//                                    (bounces+<32hex>.<12hex>@…); batches { count, hits: [[uuid, t], …] }
//   node sink.mjs PORT headers K     `npm run bench:ab`: reads each message's header, names its
//                                    X-Bench-Id and whether it carries a DKIM-Signature; batches
//                                    { count, hits: [[id, t, signed], …] }, and keeps every K-th
//                                    message (by the number ending its id) whole for a DKIM check,
//                                    sent as { kept: [[id, base64], …] } when the parent asks 'kept'
// Batches go to the parent over IPC.
import { startSmtpSink, uuidFromVerp } from '../lib/service-harness.mjs';

const now = () => performance.timeOrigin + performance.now();
const headers = process.argv[3] === 'headers';
const keepEvery = Number(process.argv[4] ?? 0);

let count = 0;
let hits = [];
const kept = [];
function flush() {
  if (count === 0 && hits.length === 0) return;
  process.send?.({ count, hits });
  count = 0;
  hits = [];
}
setInterval(flush, 10).unref();

/** The X-Bench-Id and DKIM-Signature presence of a message's header. */
function benchHeader(raw) {
  const text = raw.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  const head = (end < 0 ? text : text.slice(0, end)).replace(/\r\n[ \t]+/g, ' ');
  const id = /^x-bench-id:[ \t]*(\S+)/im.exec(head)?.[1] ?? null;
  return { id, signed: /^dkim-signature:/im.test(head) };
}

const sink = await startSmtpSink({
  port: Number(process.argv[2]),
  keep: false,
  raw: headers,
  dataReply: '2.0.0 Stored',
  smtp: {
    name: 'sink.localhost',
    banner: 'sink ESMTP',
    disabledCommands: ['AUTH', 'STARTTLS'],
    maxClients: 2000,
    socketTimeout: 60_000,
  },
  onMessage({ from, raw }) {
    const t = now();
    count++;
    if (headers) {
      const { id, signed } = benchHeader(raw);
      if (!id) return;
      hits.push([id, t, signed]);
      if (keepEvery > 0 && Number(id.slice(id.lastIndexOf('.') + 1)) % keepEvery === 0)
        kept.push([id, raw.toString('base64')]);
      return;
    }
    const uuid = uuidFromVerp(from);
    if (uuid) hits.push([uuid, t]);
  },
});
process.send?.('ready');
process.on('message', (m) => {
  if (m === 'kept') {
    flush();
    process.send?.({ kept: kept.splice(0) });
  }
});
process.on('SIGTERM', () => {
  flush();
  sink.close().then(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0));

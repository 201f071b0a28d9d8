// `npm run bench:receive [-- --n 10000] [--size 51200] [--concurrency 16] [--database-url postgres://…]`:
// how fast the MX listener takes mail for a receiving domain and hands it to a webhook, and the
// memory it takes doing so (docs/receiving.md, docs/benchmarks.md). Prints one JSON document.
//
// The built service (all roles) on a fresh data directory (PGlite) or a fresh PostgreSQL database,
// seeded by the admin CLI with shop.example receiving; a webhook subscribed to email.received points
// at a receiver in this process. N messages of SIZE bytes (a text part and an attachment) go to the
// MX listener over CONCURRENCY pooled SMTP connections, as another mail server sends them. Measured:
// received/s (first MAIL to the last 250), events/s until every email.received reached the receiver,
// and the service's memory (PSS, from /proc/<pid>/smaps_rollup every 250 ms) at idle and at peak.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import nodemailer from 'nodemailer';
import { builtStamp, sourceStamp } from './build-stamp.mjs';
import { freePort, freshDatabase, seedShop, sleep, startService } from './lib/service-harness.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '10000' },
    size: { type: 'string', default: '51200' },
    concurrency: { type: 'string', default: '16' },
    'database-url': { type: 'string' },
  },
});
const N = Number(values.n);
const SIZE = Number(values.size);
const CONCURRENCY = Number(values.concurrency);
const log = (m) => process.stderr.write(`bench:receive: ${m}\n`);

/** The process's proportional set size in MB (shared pages split among their users). */
function pssMb(pid) {
  try {
    const kb = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : null;
  } catch {
    return null;
  }
}

/** A webhook receiver that counts the email.received events it is sent. */
async function startReceiver() {
  const seen = new Set();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      try {
        const event = JSON.parse(body);
        if (event.type === 'email.received') seen.add(event.data.email_id);
      } catch {}
      res.writeHead(200).end('ok');
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/hook`, seen, close: () => server.close() };
}

async function main() {
  if (!existsSync(path.join(root, 'dist/main.mjs')) || builtStamp(root) !== sourceStamp(root))
    throw new Error('build first: npm run build');
  const dist = path.join(root, 'dist');
  const work = mkdtempSync(path.join(os.tmpdir(), 'transact-bench-receive-'));
  const database = values['database-url'] ? await freshDatabase(values['database-url']) : null;
  const receiver = await startReceiver();
  const env = {
    ...process.env,
    TRANSACT_SECRET: 'bench-receive-secret-0123456789abcdef',
    HOST: '127.0.0.1',
    PORT: String(await freePort()),
    SMTP_PORT: String(await freePort()),
    BOUNCE_SMTP_PORT: String(await freePort()),
    DATA_DIR: path.join(work, 'data'),
    DNS_SERVERS: `127.0.0.1:${await freePort()}`, // lookups fail at once: nothing leaves the machine
    DNS_CHECK_INTERVAL_MINUTES: '0',
    WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
    LOG_LEVEL: 'warn',
    ...(database ? { DATABASE_URL: database.url } : {}),
  };
  if (!database) delete env.DATABASE_URL;
  env.PUBLIC_URL = `http://127.0.0.1:${env.PORT}`;
  const { apiKey } = await seedShop(dist, env, { enterprise: 'Bench', password: 'bench-password-1', receiving: true });
  const service = await startService({ dist, env });
  try {
    const hook = await fetch(`${service.url}/resend/webhooks`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ endpoint: receiver.url, events: ['email.received'] }),
    });
    if (!hook.ok) throw new Error(`creating the webhook answered ${hook.status}: ${await hook.text()}`);
    await sleep(2_000);
    const idle = pssMb(service.child.pid);
    let peak = idle ?? 0;
    const sampler = setInterval(() => (peak = Math.max(peak, pssMb(service.child.pid) ?? 0)), 250);
    const attachment = Buffer.alloc(Math.max(0, SIZE - 2_000), 'a');
    const transport = nodemailer.createTransport({
      pool: true,
      maxConnections: CONCURRENCY,
      maxMessages: 100,
      host: '127.0.0.1',
      port: Number(env.BOUNCE_SMTP_PORT),
      secure: false,
      tls: { rejectUnauthorized: false },
    });
    const ids = [];
    let refused = 0;
    let next = 0;
    const started = Date.now();
    const sender = async () => {
      while (next < N) {
        const n = next++;
        try {
          const info = await transport.sendMail({
            from: 'ann@customer.example',
            to: `support+${n}@shop.example`,
            subject: `Question ${n}`,
            text: `Where is order ${n}?`,
            attachments: [{ filename: 'photo.jpg', content: attachment }],
          });
          const id = /Message received ([0-9a-f-]{36})/.exec(info.response)?.[1];
          if (id) ids.push(id);
          else refused++;
        } catch {
          refused++;
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, sender));
    const receivedS = (Date.now() - started) / 1000;
    log(`${ids.length} received in ${receivedS.toFixed(1)} s; waiting for the webhook events`);
    const deadline = Date.now() + 600_000;
    while (receiver.seen.size < ids.length && Date.now() < deadline) await sleep(250);
    const eventsS = (Date.now() - started) / 1000;
    clearInterval(sampler);
    transport.close();
    console.log(
      JSON.stringify(
        {
          date: new Date().toISOString(),
          machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model },
          engine: database ? 'postgres' : 'pglite',
          n: N,
          message_bytes: SIZE,
          concurrency: CONCURRENCY,
          received: ids.length,
          refused,
          received_per_s: Number((ids.length / receivedS).toFixed(1)),
          webhook_events: receiver.seen.size,
          events_per_s: Number((receiver.seen.size / eventsS).toFixed(1)),
          pss_mb: { idle: idle && Number(idle.toFixed(1)), peak: Number(peak.toFixed(1)) },
        },
        null,
        2,
      ),
    );
  } finally {
    await service.stop();
    receiver.close();
    await database?.drop().catch(() => {});
    rmSync(work, { recursive: true, force: true });
  }
}

await main();

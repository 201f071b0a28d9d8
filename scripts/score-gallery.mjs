// `npm run score:gallery`: the gallery check: each system template,
// copied into a customer's account and published, is sent with its sample variables through our
// whole pipeline (POST /v1/mail with template_id → queue → delivery with DKIM → a local SMTP sink),
// and the message as received is scored by Debian's SpamAssassin with its shipped rules and no
// network tests (`spamassassin -L -t`). Prints JSON { template key: score } on stdout (rule names
// on stderr); exits 1 when a template scores above the target (1.0).
//
// Runs the built service (`npm run build` first) on a throwaway PGlite data directory.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { embeddedService, signIn } from './bench/embedded-service.mjs';
import { freePort, startService, startSmtpSink } from './lib/service-harness.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TARGET = 1.0;
const DOMAIN = 'northwind.example';
const USER = { email: 'owner@northwind.example', password: 'gallery-check-password-1' };
const RECIPIENT = 'ann@recipient.example';

const log = (m) => process.stderr.write(`[score:gallery] ${m}\n`);
function fail(message) {
  log(message);
  process.exit(1);
}

if (!existsSync(path.join(root, 'dist/main.mjs'))) fail('dist/main.mjs is missing; run `npm run build` first');
if (spawnSync('spamassassin', ['--version']).status !== 0)
  fail('SpamAssassin is not installed (Debian: apt-get install spamassassin)');

const {
  dataDir,
  env,
  admin: runAdmin,
} = embeddedService(root, 'score-gallery', { email: 'admin@gallery.example', password: 'gallery-admin-password-1' });
function admin(args) {
  try {
    return runAdmin(args);
  } catch (err) {
    fail(err.message);
  }
}

// the far side of delivery: every message as received, raw
const sink = await startSmtpSink();
const received = sink.messages;

let service;
async function cleanup() {
  await service?.stop();
  await sink.close();
  rmSync(dataDir, { recursive: true, force: true });
}

try {
  admin(['enterprise', 'create', '--name', 'Northwind']);
  admin(['customer', 'create', '--enterprise', '1', '--name', 'Northwind Supply']);
  admin(['domain', 'add', DOMAIN, '--customer', '1', '--verified']);
  admin(['user', 'create', '--customer', '1', '--email', USER.email, '--name', 'Owner', '--password', USER.password]);
  const apiKey = /api key:\s+(\S+)/.exec(admin(['credentials', 'show', '--customer', '1']))?.[1];
  if (!apiKey) fail('could not read the API key');

  const [httpPort, smtpPort] = [await freePort(), await freePort()];
  const base = `http://127.0.0.1:${httpPort}`;
  service = await startService({
    cwd: root,
    env: {
      ...env,
      PORT: String(httpPort),
      SMTP_PORT: String(smtpPort),
      BOUNCE_SMTP_PORT: '0',
      DNS_CHECK_INTERVAL_MINUTES: '0',
      HOST: '127.0.0.1',
      PUBLIC_URL: base,
      SMTP_RELAY_URL: sink.url,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
    timeoutMs: 120_000,
    intervalMs: 200,
  });
  const consoleHeaders = await signIn(base, USER);
  const consoleCall = async (method, url, body) => {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: consoleHeaders,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
    return res.json();
  };

  // the sample variables live beside the gallery's templates in the source (Node 22 strips the types)
  const { GALLERY } = await import('../src/server/templates/gallery/templates.ts');
  const gallery = (await consoleCall('POST', '/v1/templates/search', { templateType: 'system' })).data;

  const scores = {};
  const failures = [];
  for (const g of GALLERY) {
    const system = gallery.find((t) => t.name === g.name);
    if (!system) throw new Error(`the gallery has no '${g.name}'`);
    const full = (await consoleCall('GET', `/v1/templates/${system.id}`)).template;
    // a customer's own published copy, as 'Select' in the gallery then 'Publish' makes it
    const created = (
      await consoleCall('POST', '/v1/templates', {
        name: full.name,
        subject: full.subject,
        description: full.description,
        content_html: full.content_html,
        content_text: full.content_text,
        from_name: 'Northwind Supply',
        from_email: `hello@${DOMAIN}`,
        reply_email: `support@${DOMAIN}`,
        status: 'published',
      })
    ).template;
    const before = received.length;
    const sent = await fetch(`${base}/v1/mail`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${apiKey}` },
      body: JSON.stringify({ to: RECIPIENT, template_id: created.id, variables: g.sample }),
    });
    if (sent.status !== 202 && sent.status !== 200)
      throw new Error(`send ${g.key}: ${sent.status} ${await sent.text()}`);
    const deadline = Date.now() + 30_000;
    while (received.length === before) {
      if (Date.now() > deadline) throw new Error(`${g.key}: nothing arrived at the sink in 30 s`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const raw = received[before].raw;
    if (!/^DKIM-Signature:/im.test(raw.toString('latin1')))
      throw new Error(`${g.key}: the message arrived without a DKIM signature`);
    const sa = spawnSync('spamassassin', ['-L', '-t'], { input: raw, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    const status = /^X-Spam-Status: [^\n]*(?:\n[ \t][^\n]*)*/m
      .exec(sa.stdout)?.[0]
      .replace(/,\s+/g, ',')
      .replace(/\s+/g, ' ');
    const score = Number(/score=(-?[\d.]+)/.exec(status ?? '')?.[1]);
    if (!Number.isFinite(score)) throw new Error(`${g.key}: could not read SpamAssassin's score:\n${sa.stderr}`);
    scores[g.key] = score;
    log(`${g.key}: ${score} (${/tests=(\S*)/.exec(status)?.[1] ?? ''})`);
    if (score > TARGET) failures.push(g.key);
  }
  process.stdout.write(`${JSON.stringify(scores, null, 2)}\n`);
  if (failures.length) {
    log(`above ${TARGET}: ${failures.join(', ')}`);
    process.exitCode = 1;
  }
} catch (err) {
  log(err.stack ?? String(err));
  process.exitCode = 1;
} finally {
  await cleanup();
}

// `npm run bench:template [-- --rounds N --seconds N --connections N]`: the accept rate of
// POST /v1/mail naming a published template (template_id + variables) against the same message
// given inline (the template's rendered subject and HTML), in one run (the target: templated sends
// at ≥ 0.9× the inline rate). A separate script rather than a mode of bench:send, whose sections
// each start their own services and ceilings: this needs one service, one template and two request
// bodies.
//
// The service (`npm run build` first) runs with the web role only (nothing delivers, so only
// accepting is measured) on a fresh PGlite data directory, pinned to core 1; this script's
// closed-loop generator (keep-alive connections, each sending its next request on the answer)
// runs on core 0. The two bodies alternate in windows of --seconds, --rounds times each, so drift
// from other work on the machine falls on both alike; the ratio is of the summed counts. Prints
// one JSON document to stdout; progress goes to stderr. A third body names the same template given
// its own text part, which shows what making the text part from the HTML on each send costs.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { embeddedService, signIn } from './bench/embedded-service.mjs';
import { htmlBody } from './bench/message.mjs';
import { freePort, startService } from './lib/service-harness.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: opts } = parseArgs({
  options: {
    rounds: { type: 'string', default: '4' },
    seconds: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
  },
});
const ROUNDS = Number(opts.rounds);
const SECONDS = Number(opts.seconds);
const WARMUP = Number(opts.warmup);
const CONNECTIONS = Number(opts.connections);
const TARGET = 0.9;
const USER = { email: 'bench@template.example', password: 'bench-template-password-1' };

const t0 = Date.now();
const log = (m) =>
  process.stderr.write(`[bench:template ${((Date.now() - t0) / 1000).toFixed(1).padStart(5)}s] ${m}\n`);
// the generator belongs on the load core, the service on the other
spawnSync('taskset', ['-cp', '0', String(process.pid)], { stdio: 'ignore' });

const { dataDir, env, admin } = embeddedService(root, 'bench-template', {
  email: 'admin@template.example',
  password: 'bench-admin-password-1',
});

// The template: the same 2 KB HTML bench:send uses, with a greeting, an each-loop and escaped values
const FILLER = htmlBody(2048).replace('<!doctype html><html><body>', '').replace('</body></html>', '');
const TEMPLATE = {
  subject: 'Order {{order_number}} is confirmed',
  html:
    `<!doctype html><html><body><p>Hello {{first_name}},</p>${FILLER}<ul>{{#each items}}<li>{{name}} × ` +
    `{{quantity}}</li>{{/each}}</ul><p>Total {{total}}</p></body></html>`,
};
const VARIABLES = {
  first_name: 'Ann',
  order_number: 'NW-10482',
  total: '£52.00',
  items: [
    { name: 'Oak desk organiser', quantity: 1 },
    { name: 'Recycled notebook, A5', quantity: 3 },
  ],
};
const TEXT =
  'Hello {{first_name}},\n\nThank you for your order {{order_number}}.\n{{#each items}}- {{name}} x ' +
  '{{quantity}}\n{{/each}}Total {{total}}\n';
const FROM = { email: 'orders@template.example', name: 'Northwind' };

/** Closed loop for `seconds`: CONNECTIONS requests in flight, each followed by the next. */
async function window(url, headers, body, seconds) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const tally = {};
  let accepted = 0;
  const end = performance.now() + seconds * 1000;
  const one = () =>
    new Promise((resolve) => {
      const req = http.request(url, { method: 'POST', agent, headers }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      });
      req.on('error', (err) => resolve(`error ${err.code ?? err.message}`));
      req.end(body);
    });
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < end) {
        const status = await one();
        if (performance.now() > end) break;
        tally[status] = (tally[status] ?? 0) + 1;
        if (status === 202 || status === 200) accepted += 1;
      }
    }),
  );
  agent.destroy();
  return { accepted, per_s: accepted / seconds, tally };
}

let service;
try {
  admin(['enterprise', 'create', '--name', 'Bench']);
  admin(['customer', 'create', '--enterprise', '1', '--name', 'Bench', '--quota', '100000000']);
  admin(['domain', 'add', 'template.example', '--customer', '1', '--verified']);
  admin(['user', 'create', '--customer', '1', '--email', USER.email, '--name', 'Bench', '--password', USER.password]);
  const apiKey = /api key:\s+(\S+)/.exec(admin(['credentials', 'show', '--customer', '1']))?.[1];
  if (!apiKey) throw new Error('could not read the API key');

  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  service = await startService({
    prefix: ['taskset', '-c', '1'],
    args: ['--roles', 'web'],
    cwd: root,
    env: {
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: base,
      BOUNCE_SMTP_PORT: '0',
      DNS_CHECK_INTERVAL_MINUTES: '0',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
    timeoutMs: 120_000,
    intervalMs: 200,
  });
  const consoleHeaders = await signIn(base, USER);
  const consoleCall = async (url, body) => {
    const res = await fetch(`${base}${url}`, { method: 'POST', headers: consoleHeaders, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`POST ${url}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const { template } = await consoleCall('/v1/templates', {
    name: 'Bench receipt',
    subject: TEMPLATE.subject,
    content_html: TEMPLATE.html,
    from_name: FROM.name,
    from_email: FROM.email,
    status: 'published',
  });
  // the same template with its own text part: no html-to-text on each send (what the gap is made of)
  const { template: withText } = await consoleCall('/v1/templates', {
    name: 'Bench receipt with text',
    subject: TEMPLATE.subject,
    content_html: TEMPLATE.html,
    content_text: TEXT,
    from_name: FROM.name,
    from_email: FROM.email,
    status: 'published',
  });
  // the inline body is the template's own rendering (the editor's preview call), so both requests
  // ask for the same message; the text part is given too, as the template send makes one
  const rendered = await consoleCall('/v1/templates/render', {
    subject: TEMPLATE.subject,
    content_html: template.content_html,
    variables: VARIABLES,
  });

  const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${apiKey}` };
  const url = `${base}/v1/mail`;
  const bodies = {
    template: JSON.stringify({ to: 'someone@sink.example', template_id: template.id, variables: VARIABLES }),
    template_with_text: JSON.stringify({ to: 'someone@sink.example', template_id: withText.id, variables: VARIABLES }),
    inline: JSON.stringify({
      from: FROM,
      to: 'someone@sink.example',
      subject: rendered.subject,
      html: rendered.html,
      text: rendered.text,
    }),
  };
  for (const [kind, body] of Object.entries(bodies)) {
    const res = await fetch(url, { method: 'POST', headers, body });
    if (res.status !== 202 && res.status !== 200)
      throw new Error(`${kind} send refused: ${res.status} ${await res.text()}`);
  }

  log(`warm-up ${WARMUP}s each…`);
  for (const body of Object.values(bodies)) await window(url, headers, body, WARMUP);
  const kinds = Object.keys(bodies);
  const runs = Object.fromEntries(kinds.map((k) => [k, []]));
  for (let round = 0; round < ROUNDS; round++) {
    // rotate which goes first, so none always follows another
    const order = kinds.map((_, i) => kinds[(i + round) % kinds.length]);
    for (const kind of order) {
      const w = await window(url, headers, bodies[kind], SECONDS);
      runs[kind].push(w);
      log(`round ${round + 1} ${kind}: ${w.per_s.toFixed(0)}/s ${JSON.stringify(w.tally)}`);
    }
  }
  const rate = (kind) => runs[kind].reduce((s, w) => s + w.accepted, 0) / (runs[kind].length * SECONDS);
  const ratio = rate('template') / rate('inline');
  const result = {
    bench: 'template',
    engine: 'pglite',
    connections: CONNECTIONS,
    rounds: ROUNDS,
    seconds_per_window: SECONDS,
    template_accepted_per_s: Number(rate('template').toFixed(1)),
    inline_accepted_per_s: Number(rate('inline').toFixed(1)),
    ratio: Number(ratio.toFixed(3)),
    // the template given its own text part (no html-to-text per send) against the same inline message
    template_with_text_accepted_per_s: Number(rate('template_with_text').toFixed(1)),
    ratio_with_text_part: Number((rate('template_with_text') / rate('inline')).toFixed(3)),
    target_ratio: TARGET,
    meets_target: ratio >= TARGET,
    windows: Object.fromEntries(Object.entries(runs).map(([k, ws]) => [k, ws.map((w) => Number(w.per_s.toFixed(1)))])),
    statuses: Object.fromEntries(
      Object.entries(runs).map(([k, ws]) => [
        k,
        ws.reduce((t, w) => {
          for (const [s, n] of Object.entries(w.tally)) t[s] = (t[s] ?? 0) + n;
          return t;
        }, {}),
      ]),
    ),
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} catch (err) {
  log(err.stack ?? String(err));
  process.exitCode = 1;
} finally {
  await service?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

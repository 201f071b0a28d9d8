// Where the service's CPU time goes per message, from a V8 CPU profile of a load run:
//   node --cpu-prof --cpu-prof-dir=DIR dist/main.mjs      (run the load, stop the service with SIGTERM)
//   node scripts/profile-breakdown.mjs DIR/CPU.*.cpuprofile [MESSAGES]
// Prints JSON: busy CPU seconds, and per stage milliseconds per message (with MESSAGES) and share.
// A sample counts for the innermost stage on its stack: DKIM signing inside composing counts as
// DKIM. Database work shows as "database client" (the pg driver and Kysely run from socket events,
// so their callers are not on the stack); stages named after our functions count only the time in
// our code and what it calls synchronously.
import { readFileSync } from 'node:fs';

const [file, messages] = process.argv.slice(2);
if (!file) {
  console.error('usage: node scripts/profile-breakdown.mjs PROFILE.cpuprofile [MESSAGES]');
  process.exit(1);
}
const profile = JSON.parse(readFileSync(file, 'utf8'));

/** Stages, innermost first: the first whose test matches a frame on the sample's stack (walking out) wins. */
const STAGES = [
  [
    'DKIM signing',
    (f) =>
      /nodemailer\/(lib|dist\/esm|dist\/cjs)\/dkim\//.test(f.url) ||
      (f.url === 'node:internal/crypto/sig' && f.functionName === 'sign'),
  ],
  [
    'SMTP out (nodemailer)',
    (f) => /nodemailer\/(lib|dist\/esm|dist\/cjs)\/(smtp-connection|smtp-pool|smtp-transport)\//.test(f.url),
  ],
  [
    'composing MIME (nodemailer)',
    (f) =>
      new RegExp(
        'nodemailer/(lib|dist/esm|dist/cjs)/' +
          '(mime-node|mail-composer|mime-funcs|mailer|qp|base64|addressparser|punycode)',
      ).test(f.url),
  ],
  ['SMTP in (smtp-server)', (f) => /smtp-server\//.test(f.url)],
  ['database client (pg, Kysely)', (f) => /node_modules\/(pg|pg-protocol|pg-pool|kysely|@electric-sql)\//.test(f.url)],
  ['tracking rewrite', (f) => /^(trackedContent|rewriteLinks|withTracking)/.test(f.functionName)],
  ['webhook outbox', (f) => /webhook/i.test(f.functionName) || /outbox/i.test(f.functionName)],
  [
    'outcome write',
    (f) =>
      /^(recordOutcomes|recordAttempts|applyAttempts|insertEvents|bumpDailyStats|rememberSites|requeueWaiting)$/.test(
        f.functionName,
      ),
  ],
  ['claim and load', (f) => /^(claimDue|loadMessages|renewLeases)$/.test(f.functionName)],
  [
    'acceptance (checks, insert)',
    (f) =>
      /^(acceptData|accept|prepare|writeJobs|parseMessageHeaders|rewriteHeaders|findBareLineBreak)$/.test(
        f.functionName,
      ),
  ],
  ['HTTP', (f) => /node_modules\/(hono|@hono)\//.test(f.url)],
  ['garbage collection', (f) => f.functionName === '(garbage collector)'],
];
/** A socket write whose caller is not on the stack (written after a cork, from a later tick). */
const SOCKET_WRITE = (f) =>
  f.url === '' && /^(writev|writeBuffer|writeUtf8String|writeLatin1String)$/.test(f.functionName);

const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const stageOf = new Map();
function stage(id) {
  if (stageOf.has(id)) return stageOf.get(id);
  const frame = nodes.get(id).callFrame;
  const hit = STAGES.find(([, test]) => test(frame));
  const s = hit ? hit[0] : parent.has(id) ? stage(parent.get(id)) : 'other';
  stageOf.set(id, s);
  return s;
}

const totals = new Map();
let busy = 0;
profile.samples.forEach((id, i) => {
  const fn = nodes.get(id).callFrame.functionName;
  if (fn === '(idle)') return;
  const us = profile.timeDeltas[i] ?? 0;
  busy += us;
  let s = stage(id);
  if (s === 'other' && SOCKET_WRITE(nodes.get(id).callFrame)) s = 'socket writes, caller unknown';
  totals.set(s, (totals.get(s) ?? 0) + us);
});

const n = Number(messages) || 0;
const stages = Object.fromEntries(
  [...totals]
    .sort((a, b) => b[1] - a[1])
    .map(([s, us]) => [
      s,
      { share_pct: Math.round((1000 * us) / busy) / 10, ...(n ? { ms_per_message: Math.round(us / n) / 1000 } : {}) },
    ]),
);
console.log(
  JSON.stringify(
    {
      profile: file,
      busy_cpu_s: Math.round(busy / 1e4) / 100,
      ...(n ? { messages: n, busy_ms_per_message: Math.round(busy / n) / 1000 } : {}),
      stages,
    },
    null,
    2,
  ),
);

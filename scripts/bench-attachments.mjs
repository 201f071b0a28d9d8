// `npm run bench:attachments [-- --size-mb N --rounds N]`: online attachments' upload and download of one large
// file (default 1 GB) through the service — POST /v1/tracked-attachments/groups/{id}/assets
// (multipart, busboy, local storage) and POST /a/{public id}/files/{id} (the public page's
// download) — against a bare node:http server streaming the same bytes to and from the same disk,
// in one run (interleaved rounds, default 3, best of each); and the service's peak RSS growth over its idle RSS while
// it moves the file.
// Targets: ≥ 0.7× the bare server both ways, peak RSS growth ≤ 64 MB.
// Runs the built service (`npm run build` first). Prints one JSON document; progress on stderr.
import { execFile } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { promisify } from 'node:util';
import { freePort, startService } from './lib/service-harness.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    'size-mb': { type: 'string', default: '1024' },
    rounds: { type: 'string', default: '3' },
    dir: { type: 'string' },
  },
});
const ROUNDS = Number(args.rounds);
const SIZE = Number(args['size-mb']) * 1024 * 1024;
const work = mkdtempSync(path.join(args.dir ?? os.tmpdir(), 'transact-bench-attachments-'));
const log = (...a) => console.error('[bench:attachments]', ...a);
const run = promisify(execFile);

/** A file of `size` bytes of varied content, written in 4 MB blocks. */
async function makeFile(file, size) {
  const out = createWriteStream(file);
  const block = Buffer.alloc(4 * 1024 * 1024);
  for (let i = 0; i < block.length; i++) block[i] = (i * 31 + 7) & 0xff;
  for (let left = size; left > 0; left -= block.length) {
    if (!out.write(left >= block.length ? block : block.subarray(0, left)))
      await new Promise((r) => out.once('drain', r));
  }
  await new Promise((r) => out.end(r));
}

function rssOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) * 1024;
}

/** Samples the process's RSS every 50 ms while `work` runs; answers the peak. */
async function peakRss(pid, work) {
  let peak = rssOf(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssOf(pid));
    } catch {}
  }, 50);
  try {
    const result = await work();
    return { result, peak };
  } finally {
    clearInterval(timer);
  }
}

/** Streams `file` as one multipart part to `url`; answers seconds and the parsed answer. */
function upload(url, file, headers = {}) {
  const boundary = '----benchattachments';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="asset"; filename="big.bin"\r\nContent-Type: ` +
      `application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const size = statSync(file).size;
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = http.request(
      url,
      {
        method: 'POST',
        headers: {
          ...headers,
          'Content-Type': `multipart/form-data; boundary=${boundary}`,
          'Content-Length': head.length + size + tail.length,
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const seconds = Number(process.hrtime.bigint() - started) / 1e9;
          if (res.statusCode >= 300)
            return reject(new Error(`upload answered ${res.statusCode}: ${Buffer.concat(chunks)}`));
          resolve({ seconds, body: Buffer.concat(chunks).toString() });
        });
      },
    );
    req.on('error', reject);
    req.write(head);
    const source = createReadStream(file, { highWaterMark: 1 << 20 });
    source.pipe(req, { end: false });
    source.on('end', () => req.end(tail));
  });
}

/** POSTs to `url` and streams the answer into `file`; answers seconds and bytes. */
function download(url, file) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = http.request(
      url,
      { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': 0 } },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`download answered ${res.statusCode}`));
        let bytes = 0;
        res.on('data', (c) => (bytes += c.length));
        pipeline(res, createWriteStream(file)).then(
          () => resolve({ seconds: Number(process.hrtime.bigint() - started) / 1e9, bytes }),
          reject,
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/**
 * The bare ceiling: node:http piping a request body to a file, and that file back to a response
 * (as the service serves the copy it has just stored, so both read equally warm files).
 */
function bareServer(dir) {
  const stored = path.join(dir, 'bare-upload.bin');
  const server = http.createServer((req, res) => {
    if (req.url === '/upload') {
      pipeline(req, createWriteStream(stored)).then(
        () => res.end('{}'),
        () => res.destroy(),
      );
    } else {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': statSync(stored).size });
      pipeline(createReadStream(stored), res).catch(() => {});
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const mbs = (bytes, seconds) => Math.round((bytes / 1024 / 1024 / seconds) * 10) / 10;

async function main() {
  const source = path.join(work, 'source.bin');
  log(`writing a ${args['size-mb']} MB file in ${work}`);
  await makeFile(source, SIZE);

  const port = await freePort();
  const dataDir = path.join(work, 'data');
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    ROLES: 'web',
    LOG_LEVEL: 'warn',
    TRANSACT_SECRET: 'bench-secret-bench-secret-bench-secret-01',
    ATTACHMENT_MAX_FILE_BYTES: String(SIZE * 2),
    TRANSACT_ADMIN_PASSWORD: 'bench-admin-password-1',
  };
  delete env.DATABASE_URL;
  const admin = (...a) => run(process.execPath, [path.join(root, 'dist', 'admin.mjs'), ...a], { env });
  await admin('enterprise', 'create', '--name', 'Bench');
  await admin('customer', 'create', '--enterprise', '1', '--name', 'Bench Shop');
  await admin(
    'user',
    'create',
    '--customer',
    'Bench Shop',
    '--email',
    'bench@bench.test',
    '--name',
    'Bench',
    '--password',
    'bench-password-123',
  );
  const { child: service, url: base } = await startService({
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
    timeoutMs: 30_000,
  });
  try {
    const login = await fetch(`${base}/v1/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Request-Type': 'ui', Origin: base },
      body: JSON.stringify({ email: 'bench@bench.test', password: 'bench-password-123' }),
    });
    const cookie = /transact_session=[^;]+/.exec(login.headers.get('set-cookie') ?? '')[0];
    const ui = { Cookie: cookie, 'Request-Type': 'ui', Origin: base };
    const form = new FormData();
    form.append('group', JSON.stringify({ name: 'Bench' }));
    const group = await (
      await fetch(`${base}/v1/tracked-attachments/groups`, { method: 'POST', headers: ui, body: form })
    ).json();
    const publicPath = new URL(group.preview_link).pathname;

    const bare = await bareServer(work);
    const bareBase = `http://127.0.0.1:${bare.address().port}`;
    // warm both paths with a small file, then measure RSS at rest
    const small = path.join(work, 'small.bin');
    await makeFile(small, 4 * 1024 * 1024);
    const warm = JSON.parse((await upload(`${base}/v1/tracked-attachments/groups/${group.id}/assets`, small, ui)).body)
      .assets[0];
    await download(`${base}${publicPath}/files/${warm.id}`, path.join(work, 'warm.bin'));
    await new Promise((r) => setTimeout(r, 1000));
    const idle = rssOf(service.pid);

    // interleaved rounds, best of each: the machine is shared, and a burst of other work during one
    // transfer should not decide the ratio
    const best = { bareUp: Infinity, up: Infinity, bareDown: Infinity, down: Infinity };
    let peak = idle;
    for (let round = 1; round <= ROUNDS; round++) {
      log(`round ${round}/${ROUNDS}: upload, bare node:http`);
      best.bareUp = Math.min(best.bareUp, (await upload(`${bareBase}/upload`, source)).seconds);
      log(`round ${round}/${ROUNDS}: upload, the service`);
      const up = await peakRss(service.pid, () =>
        upload(`${base}/v1/tracked-attachments/groups/${group.id}/assets`, source, ui),
      );
      const asset = JSON.parse(up.result.body).assets[0];
      if (asset.size !== SIZE) throw new Error(`stored ${asset.size} bytes of ${SIZE}`);
      best.up = Math.min(best.up, up.result.seconds);
      log(`round ${round}/${ROUNDS}: download, bare node:http`);
      best.bareDown = Math.min(
        best.bareDown,
        (await download(`${bareBase}/download`, path.join(work, 'bare-download.bin'))).seconds,
      );
      rmSync(path.join(work, 'bare-download.bin'), { force: true });
      rmSync(path.join(work, 'bare-upload.bin'), { force: true });
      log(`round ${round}/${ROUNDS}: download, the public page`);
      const down = await peakRss(service.pid, () =>
        download(`${base}${publicPath}/files/${asset.id}`, path.join(work, 'download.bin')),
      );
      if (down.result.bytes !== SIZE) throw new Error(`downloaded ${down.result.bytes} bytes of ${SIZE}`);
      rmSync(path.join(work, 'download.bin'), { force: true });
      best.down = Math.min(best.down, down.result.seconds);
      peak = Math.max(peak, up.peak, down.peak);
      // the stored copy goes, so copies do not pile up round after round
      await fetch(`${base}/v1/tracked-attachments/groups/${group.id}/assets/${asset.id}`, {
        method: 'DELETE',
        headers: ui,
      });
    }
    bare.close();

    const result = {
      file_mb: SIZE / 1024 / 1024,
      rounds: ROUNDS,
      upload: {
        service_mb_s: mbs(SIZE, best.up),
        bare_node_http_mb_s: mbs(SIZE, best.bareUp),
        ratio: Math.round((best.bareUp / best.up) * 100) / 100,
        target: 0.7,
      },
      download: {
        service_mb_s: mbs(SIZE, best.down),
        bare_node_http_mb_s: mbs(SIZE, best.bareDown),
        ratio: Math.round((best.bareDown / best.down) * 100) / 100,
        target: 0.7,
      },
      rss: {
        idle_mb: Math.round(idle / 1024 / 1024),
        peak_mb: Math.round(peak / 1024 / 1024),
        growth_mb: Math.round(((peak - idle) / 1024 / 1024) * 10) / 10,
        target_growth_mb: 64,
      },
      cpus: os.cpus().length,
      loadavg: os.loadavg().map((l) => Math.round(l * 100) / 100),
    };
    result.met = result.upload.ratio >= 0.7 && result.download.ratio >= 0.7 && result.rss.growth_mb <= 64;
    console.log(JSON.stringify(result, null, 2));
  } finally {
    service.kill('SIGTERM');
    await new Promise((r) => service.once('exit', r));
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  rmSync(work, { recursive: true, force: true });
  process.exit(1);
});

// The MX listener under malformed mail (docs/receiving.md "When a message counts as received"): random
// broken MIME sent over a real SMTP socket, as a careless or hostile server would send it: broken and
// missing boundaries, deep nesting, bad base64 and quoted-printable, NULs, bare LF and CR, huge header
// lines, header floods, bogus charsets and encoded words. Every message gets a clear reply; one
// refused leaves no row and no file; one accepted is listed and its raw download is the bytes sent,
// under our Received-SPF and Authentication-Results (RFC 8601 §5). The listener runs in this process,
// so a crash fails the file. Bounded: a fixed seed (printed, and by fast-check on a failure) and
// NUM_RUNS messages per property; FUZZ_SEED=<n> replays another run.
import fc from 'fast-check';
import type { Resend } from 'resend';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { countReceived, type Receiving, startReceiving } from '../helpers/receiving.ts';
import { openDialog } from '../helpers/smtp-dialog.ts';
import type { BounceReceiver } from '../../src/server/bounces/receiver.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261129);
const NUM_RUNS = 30;
/** Over this a message is refused whole (552); the header floods stay under it. */
const MAX_BYTES = 1_500_000;

let receiving: Receiving;
let app: TestApp;
let receiver: BounceReceiver;
let resend: Resend;

beforeAll(async () => {
  receiving = await startReceiving({ INBOUND_MAX_MESSAGE_BYTES: String(MAX_BYTES) });
  ({ app, receiver, resend } = receiving);
  receiving.dns.set('_dmarc.sender.example', 'TXT', ['v=DMARC1; p=reject']);
  console.info(`inbound fuzz: seed ${SEED} (FUZZ_SEED=${SEED} replays it), ${NUM_RUNS} runs per property`);
});

afterAll(async () => {
  await receiving?.close();
});

// ---- the pieces of a broken message, as latin1 strings (one character, one byte) ----------------

const EOL = fc.constantFrom('\r\n', '\n', '\r');
const token = fc.stringMatching(/^[A-Za-z0-9_-]{1,16}$/);
/** Any bytes: NULs, lone CR and LF, 8-bit, the SMTP terminator's pieces. */
const bytes = (maxLength: number) => fc.uint8Array({ maxLength }).map((b) => Buffer.from(b).toString('latin1'));
/** Text with the characters that break parsers most often, in any order. */
const nasty = fc
  .array(
    fc.constantFrom('a', ' ', '\u0000', '\r', '\n', '\r\n', '.', '=', '?', '"', ';', ':', '<', '>', '\u00ff', '--'),
    {
      maxLength: 60,
    },
  )
  .map((parts) => parts.join(''));
const charset = fc.oneof(
  fc.constantFrom('utf-8', 'iso-8859-1', 'x-no-such-charset', 'utf-7', 'gb2312', 'ISO-2022-JP', ''),
  token,
);

const encodedWord = fc
  .tuple(charset, fc.constantFrom('B', 'Q', 'X', ''), bytes(40))
  .map(([cs, enc, text]) => `=?${cs}?${enc}?${enc === 'B' ? Buffer.from(text, 'latin1').toString('base64') : text}?=`);

const header = fc.oneof(
  fc.constant('From: Zoë <zoe@sender.example>'),
  fc.constant('From:'),
  token.map((t) => `From: ${t}`),
  nasty.map((t) => `From: ${t}`),
  fc.tuple(encodedWord, encodedWord).map(([a, b]) => `Subject: ${a} ${b}`),
  charset.map((cs) => `Content-Type: text/plain; charset="${cs}"`),
  fc.tuple(token, bytes(80)).map(([name, value]) => `X-${name}: ${value}`),
  nasty.map((t) => `To: ${t}`),
  nasty.map((t) => `Date: ${t}`),
  fc.constant('Message-ID: <<<>>>'),
  bytes(60), // a line with no colon at all
  fc.constant(' folded continuation with no header before it'),
);

/** A header section: a few headers, sometimes a flood of them or a line far past RFC 5322's 998. */
const headerSection = fc
  .tuple(
    fc.array(header, { maxLength: 12 }),
    fc.option(fc.integer({ min: 200, max: 3_000 }), { nil: undefined }),
    fc.option(fc.integer({ min: 1_000, max: 150_000 }), { nil: undefined }),
  )
  .map(([headers, flood, longLine]) => [
    ...headers,
    ...(flood ? Array.from({ length: flood }, (_, i) => `X-Flood-${i}: ${'y'.repeat(i % 40)}`) : []),
    ...(longLine ? [`X-Long: ${'l'.repeat(longLine)}`] : []),
  ]);

const transferEncoding = fc.constantFrom('base64', 'quoted-printable', '7bit', '8bit', 'binary', 'x-uuencode', 'bogus');
const brokenBase64 = fc.array(fc.constantFrom('QUJD', 'A', '====', '!!', '\u0000', '\r\n', 'ZGVm', '-_'), {
  maxLength: 40,
});
const brokenQp = fc.array(fc.constantFrom('=', '=Z', '=4', '=41', '=\r\n', 'abc', '=\n', '\u0000', '=FF'), {
  maxLength: 40,
});

/** A leaf part: a content type with a bogus charset, an encoding, and content that may not match it. */
const leaf = fc
  .tuple(
    fc.constantFrom('text/plain', 'text/html', 'application/octet-stream', 'image/png', 'message/rfc822', 'x/y'),
    charset,
    transferEncoding,
    fc.oneof(
      brokenBase64.map((p) => p.join('')),
      brokenQp.map((p) => p.join('')),
      bytes(300),
      nasty,
    ),
    fc.boolean(),
  )
  .map(
    ([type, cs, encoding, content, attached]) =>
      `Content-Type: ${type}; charset=${cs}\r\nContent-Transfer-Encoding: ${encoding}\r\n` +
      `${attached ? 'Content-Disposition: attachment; filename="f\u0000.bin"\r\n' : ''}\r\n${content}`,
  );

/**
 * A multipart body nested `depth` deep: each level's closing boundary may be missing, misspelled or
 * another level's, and its opening one may never come.
 */
const nested = fc
  .tuple(
    fc.integer({ min: 1, max: 120 }),
    fc.array(leaf, { minLength: 1, maxLength: 4 }),
    fc.constantFrom('close', 'missing', 'misspelled', 'other'),
    fc.boolean(),
  )
  .map(([depth, leaves, ending, opened]) => {
    let body = leaves.join('\r\n');
    for (let level = depth; level > 0; level--) {
      const b = `b${level}`;
      const close =
        ending === 'close' ? `--${b}--` : ending === 'misspelled' ? `--${b}-x-` : ending === 'other' ? '--b0--' : '';
      body =
        `Content-Type: multipart/mixed; boundary="${b}"\r\n\r\npreamble\r\n` +
        `${opened || level > 1 ? `--${b}\r\n` : ''}${body}\r\n${close}\r\n`;
    }
    return body;
  });

/** A whole message: its header section and a body that is one of the broken shapes. */
const message = fc
  .tuple(headerSection, fc.oneof(nested, leaf, bytes(2_000), nasty), EOL)
  .map(([headers, body, eol]) => [...headers.map((h) => h.replace(/\r\n/g, eol)), '', body].join(eol));

// ---- sending one and checking what became of it ----------------------------------------------

interface Outcome {
  reply: string;
  id: string | null;
}

/** Every stored key of received mail. */
async function storedKeys(): Promise<Set<string>> {
  const keys = new Set<string>();
  for await (const object of app.ctx.storage.list('inbound/')) keys.add(object.key);
  return keys;
}

/**
 * The bytes sent as DATA for `raw` (RFC 5321 §4.5.2: a dot starting a line is doubled; the listener
 * takes a dot after a bare LF as a line start too, so those are doubled as well), then the end.
 */
function dataOf(raw: Buffer): Buffer {
  return Buffer.from(`${raw.toString('latin1').replace(/(^|\n)\./g, '$1..')}.\r\n`, 'latin1');
}

async function send(raw: Buffer): Promise<Outcome> {
  const dialog = await openDialog(receiver.port);
  try {
    expect(dialog.greeting).toMatch(/^220 /);
    expect(await dialog.command('EHLO mail.sender.example')).toMatch(/^250/);
    expect(await dialog.command('MAIL FROM:<zoe@sender.example>')).toMatch(/^250/);
    expect(await dialog.command('RCPT TO:<support@shop.example>')).toMatch(/^250/);
    expect(await dialog.command('DATA')).toMatch(/^354/);
    const reply = await dialog.raw(dataOf(raw));
    await dialog.command('QUIT');
    return { reply, id: /^250 .*Message received ([0-9a-f-]{36})/.exec(reply)?.[1] ?? null };
  } finally {
    dialog.end();
    await dialog.closed();
  }
}

/** Sends `text` (a CRLF added when it does not end with one) and checks the promises of the file's header. */
async function sendAndCheck(text: string): Promise<void> {
  const raw = Buffer.from(text.endsWith('\r\n') ? text : `${text}\r\n`, 'latin1');
  const [keysBefore, rowsBefore] = [await storedKeys(), await countReceived(app)];
  const { reply, id } = await send(raw);
  // a clear answer: a code and its reason; the listener's own trouble (451) is no answer to a bad message
  expect(reply, 'the reply').toMatch(/^(250|5\d\d) \S.{4,}$/);
  if (id === null) {
    expect(reply).toMatch(/^5/);
    expect(await countReceived(app), `refused (${reply}): no row`).toBe(rowsBefore);
    expect(
      [...(await storedKeys())].filter((k) => !keysBefore.has(k)),
      `refused (${reply}): no file`,
    ).toEqual([]);
    return;
  }
  const listed = await resend.emails.receiving.list({ limit: 1 });
  expect(listed.data?.data.map((e) => e.id)).toEqual([id]);
  const email = await resend.emails.receiving.get(id);
  expect(email.error).toBeNull();
  const download = Buffer.from(await (await fetch(email.data!.raw!.download_url)).arrayBuffer());
  const ours = download.subarray(0, download.length - raw.length).toString('latin1');
  expect(download.subarray(download.length - raw.length).equals(raw), 'the raw download is the bytes sent').toBe(true);
  expect(ours).toMatch(/^Received-SPF: [^\r\n]*\r\n(?:[ \t][^\r\n]*\r\n)*Authentication-Results: /);
  expect(ours.endsWith('\r\n')).toBe(true);
}

/** The listener still answers after the run: it did not crash or hang. */
async function stillAnswers(): Promise<void> {
  const dialog = await openDialog(receiver.port);
  expect(await dialog.command('EHLO after.example')).toMatch(/^250/);
  dialog.end();
  await dialog.closed();
}

const options = { numRuns: NUM_RUNS, seed: SEED, endOnFailure: true } as const;

describe('the MX listener given malformed mail', () => {
  it('answers each broken message clearly; one refused leaves nothing, one accepted reads back whole', async () => {
    await fc.assert(fc.asyncProperty(message, sendAndCheck), options);
    await stillAnswers();
  }, 240_000);

  it('holds up under deep nesting and broken boundaries', async () => {
    const deep = fc
      .tuple(fc.array(header, { maxLength: 4 }), nested)
      .map(([headers, body]) => ['From: zoe@sender.example', ...headers, body].join('\r\n'));
    await fc.assert(fc.asyncProperty(deep, sendAndCheck), options);
    await stillAnswers();
  }, 240_000);

  it('holds up under header floods, huge header lines, NULs and bare line ends', async () => {
    const heavy = fc
      .tuple(headerSection, EOL, bytes(500))
      .map(([headers, eol, body]) => [...headers, 'X-Nul: a\u0000b', '', body].join(eol));
    await fc.assert(fc.asyncProperty(heavy, sendAndCheck), options);
    await stillAnswers();
  }, 240_000);

  it('counts the case the size limit refuses (552) as refused, leaving nothing', async () => {
    const before = await storedKeys();
    const { reply, id } = await send(Buffer.from(`From: zoe@sender.example\r\n\r\n${'x'.repeat(MAX_BYTES)}\r\n`));
    expect(reply).toMatch(/^552 5\.3\.4 /);
    expect(id).toBeNull();
    expect([...(await storedKeys())].filter((k) => !before.has(k))).toEqual([]);
  });
});

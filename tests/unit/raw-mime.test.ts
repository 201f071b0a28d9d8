// Rewriting the text parts of raw MIME messages (src/server/message/raw-mime.ts): the rewritten
// parts decode to the rewritten text, every other byte stays as it was.
import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import { decodeQuotedPrintable, rewriteTextParts, type TextSubtype } from '../../src/server/message/raw-mime.ts';

const crlf = (lines: string[]) => Buffer.from(lines.join('\r\n'), 'utf8');
const calls: TextSubtype[] = [];
const rewrite = (content: string, subtype: TextSubtype) => {
  calls.push(subtype);
  return content.replaceAll('https://shop.example/', 'https://mail.transact.test/t/c/');
};
const headOf = (raw: Buffer) => raw.subarray(0, raw.indexOf('\r\n\r\n')).toString('latin1');

const longWord = 'x'.repeat(90);
const alternative = crlf([
  'From: Shop <orders@shop.example>',
  'To: ann@customer.example',
  'Subject: =?UTF-8?Q?Gr=C3=BC=C3=9Fe?=',
  'MIME-Version: 1.0',
  'Content-Type: multipart/alternative;',
  ' boundary="--alt-b"',
  '',
  'This is a multi-part message in MIME format.',
  '----alt-b',
  'Content-Type: text/plain; charset=utf-8',
  'Content-Transfer-Encoding: quoted-printable',
  '',
  'Gr=C3=BC=C3=9Fe! Visit https://shop.example/a?b=3D1 or ' + longWord.slice(0, 10) + '=',
  longWord.slice(10) + ' https://shop.exa=',
  'mple/soft',
  '----alt-b',
  'Content-Type: text/html; charset="UTF-8"',
  'Content-Transfer-Encoding: base64',
  '',
  ...Buffer.from('<p>Grüße <a href="https://shop.example/h">shop</a></p>', 'utf8')
    .toString('base64')
    .match(/.{1,20}/g)!,
  '----alt-b--',
  'epilogue stays',
  '',
]);

describe('rewriteTextParts', () => {
  it(
    'rewrites both parts of multipart/alternative ' + '(quoted-printable and base64) and keeps the rest byte for byte',
    async () => {
      calls.length = 0;
      const out = rewriteTextParts(alternative, rewrite);
      expect(calls).toEqual(['plain', 'html']);
      expect(headOf(out)).toBe(headOf(alternative));
      const parsed = await simpleParser(out);
      expect(parsed.text).toBe(
        `Grüße! Visit https://mail.transact.test/t/c/a?b=1 or ${longWord} https://mail.transact.test/t/c/soft`,
      );
      expect(parsed.html).toBe('<p>Grüße <a href="https://mail.transact.test/t/c/h">shop</a></p>');
      expect(parsed.subject).toBe('Grüße');
      const text = out.toString('latin1');
      expect(text).toContain('\r\nThis is a multi-part message in MIME format.\r\n----alt-b\r\n');
      expect(text.endsWith('\r\n----alt-b--\r\nepilogue stays\r\n')).toBe(true);
      // encoders keep each part's transfer encoding and lines of at most 76 characters
      expect(text).toMatch(/Content-Transfer-Encoding: quoted-printable\r\n\r\nGr=C3=BC/);
      expect(text.split('\r\n').every((l) => l.length <= 78)).toBe(true);
      expect(text.split('\r\n').every((l) => !/^[A-Za-z0-9+/=]{77,}$/.test(l))).toBe(true);
    },
  );

  it('leaves attachments of multipart/mixed untouched, text ones included', async () => {
    const pdf = Buffer.from('%PDF-1.4 https://shop.example/in-a-pdf').toString('base64');
    const attached = 'https://shop.example/in-an-attachment';
    const raw = crlf([
      'From: orders@shop.example',
      'Content-Type: multipart/mixed; boundary=mixed',
      '',
      '--mixed',
      'Content-Type: multipart/alternative; boundary=mixed-alt',
      '',
      '--mixed-alt',
      'Content-Type: text/plain',
      '',
      'Hi https://shop.example/t',
      '--mixed-alt',
      'Content-Type: text/html',
      '',
      '<a href="https://shop.example/h">h</a>',
      '--mixed-alt--',
      '',
      '--mixed',
      'Content-Type: text/plain; name=links.txt',
      'Content-Disposition: attachment; filename=links.txt',
      '',
      attached,
      '--mixed',
      'Content-Type: application/pdf; name=a.pdf',
      'Content-Disposition: attachment; filename=a.pdf',
      'Content-Transfer-Encoding: base64',
      '',
      pdf,
      '--mixed',
      'Content-Type: message/rfc822',
      '',
      'Subject: forwarded',
      '',
      'https://shop.example/forwarded',
      '--mixed--',
      '',
    ]);
    calls.length = 0;
    const out = rewriteTextParts(raw, rewrite);
    expect(calls).toEqual(['plain', 'html']);
    const text = out.toString('latin1');
    expect(text).toContain(
      '\r\n--mixed-alt\r\nContent-Type: text/plain\r\n\r\nHi https://mail.transact.test/t/c/t\r\n--mixed-alt\r\n',
    );
    expect(text).toContain('<a href="https://mail.transact.test/t/c/h">h</a>\r\n--mixed-alt--');
    expect(text).toContain(`filename=links.txt\r\n\r\n${attached}\r\n--mixed\r\n`);
    expect(text).toContain(`base64\r\n\r\n${pdf}\r\n--mixed\r\n`);
    expect(text).toContain('https://shop.example/forwarded');
    // exactly the rewritten URLs differ
    expect(text.replaceAll('https://mail.transact.test/t/c/', 'https://shop.example/')).toBe(raw.toString('latin1'));
    const parsed = await simpleParser(out);
    expect(parsed.attachments.map((a) => a.filename)).toEqual(['links.txt', 'a.pdf', undefined]);
  });

  it('rewrites a single-part message', () => {
    const raw = crlf(['From: orders@shop.example', 'Subject: one', '', 'See https://shop.example/x.', '']);
    expect(rewriteTextParts(raw, rewrite).toString()).toBe(
      crlf(['From: orders@shop.example', 'Subject: one', '', 'See https://mail.transact.test/t/c/x.', '']).toString(),
    );
  });

  it('returns the same buffer when nothing changes', () => {
    const untouched = (c: string) => c;
    expect(rewriteTextParts(alternative, untouched)).toBe(alternative);
    const headersOnly = Buffer.from('Subject: no body\r\n');
    expect(rewriteTextParts(headersOnly, rewrite)).toBe(headersOnly);
  });

  it('relabels a rewritten non-UTF-8 part as UTF-8 and keeps its text', async () => {
    const raw = Buffer.concat([
      Buffer.from(
        'Subject: latin\r\nContent-Type: text/plain; charset=iso-8859-1; format=flowed\r\nContent-Transfer-Encoding: ' +
          '8bit\r\n\r\n',
        'latin1',
      ),
      Buffer.from('Café https://shop.example/c\r\n', 'latin1'),
    ]);
    const out = rewriteTextParts(raw, rewrite);
    expect(headOf(out)).toBe(
      'Subject: latin\r\nContent-Type: text/plain; charset=utf-8; format=flowed\r\nContent-Transfer-Encoding: 8bit',
    );
    expect((await simpleParser(out)).text).toBe('Café https://mail.transact.test/t/c/c');
  });

  it('keeps an ASCII-only part in its label', () => {
    const raw = crlf(['Content-Type: text/plain; charset=iso-8859-1', '', 'https://shop.example/c', '']);
    expect(headOf(rewriteTextParts(raw, rewrite))).toBe('Content-Type: text/plain; charset=iso-8859-1');
  });

  it('switches a 7bit part to quoted-printable when a line would grow past 998 characters', async () => {
    const raw = crlf(['Content-Type: text/plain', '', `${'y'.repeat(990)} https://shop.example/z`, '']);
    const grow = (c: string) => c.replace('https://shop.example/z', `https://mail.transact.test/t/c/${'z'.repeat(40)}`);
    const out = rewriteTextParts(raw, grow);
    expect(headOf(out)).toBe('Content-Type: text/plain\r\nContent-Transfer-Encoding: quoted-printable');
    // (mailparser keeps a quoted-printable body's final line break)
    expect((await simpleParser(out)).text?.trimEnd()).toBe(
      `${'y'.repeat(990)} https://mail.transact.test/t/c/${'z'.repeat(40)}`,
    );
  });

  it('does not take a longer boundary that starts with the same characters for a delimiter', () => {
    const raw = crlf([
      'Content-Type: multipart/mixed; boundary=b',
      '',
      '--b',
      'Content-Type: text/plain',
      '',
      '--bb is not a delimiter https://shop.example/1',
      '--b--',
      '',
    ]);
    expect(rewriteTextParts(raw, rewrite).toString()).toContain(
      '\r\n--bb is not a delimiter https://mail.transact.test/t/c/1\r\n--b--',
    );
  });

  it('leaves a part in a charset it cannot decode alone', () => {
    const raw = crlf(['Content-Type: text/plain; charset=x-unknown-charset', '', 'https://shop.example/1', '']);
    expect(rewriteTextParts(raw, rewrite)).toBe(raw);
  });
});

describe('decodeQuotedPrintable', () => {
  it.each([
    ['a=3Db', 'a=b'],
    ['soft=\r\nbreak', 'softbreak'],
    ['trailing space dropped   \r\nnext', 'trailing space dropped\r\nnext'],
    ['padding after soft break=  \r\nx', 'padding after soft breakx'],
    ['lower =c3=a9', 'lower é'],
    ['not hex =ZZ', 'not hex =ZZ'],
  ])('%j → %j', (encoded, decoded) => {
    expect(decodeQuotedPrintable(Buffer.from(encoded, 'latin1')).toString('utf8')).toBe(decoded);
  });
});

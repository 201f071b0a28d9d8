// The content rewriting rules of open and click tracking (src/server/message/tracking-rewrite.ts).
import { describe, expect, it } from 'vitest';
import {
  classifyLink,
  decodeAttribute,
  insertOpenPixel,
  rewriteHtmlLinks,
  rewriteTextLinks,
} from '../../src/server/message/tracking-rewrite.ts';

const PUBLIC = 'https://mail.transact.test';
// a stand-in tracker that shows which destination each tracking link stands for
const seen: string[] = [];
const opts = {
  publicUrl: PUBLIC,
  track: (url: string) => {
    seen.push(url);
    return `${PUBLIC}/t/c/T${seen.length}`;
  },
};
function run<T>(fn: () => T): { out: T; tracked: string[] } {
  seen.length = 0;
  const out = fn();
  return { out, tracked: [...seen] };
}

describe('classifyLink', () => {
  it.each([
    ['https://shop.example/a', { kind: 'track', url: 'https://shop.example/a' }],
    ['HTTP://Shop.example/A?b=1', { kind: 'track', url: 'HTTP://Shop.example/A?b=1' }],
    ['  https://shop.example/a \n', { kind: 'track', url: 'https://shop.example/a' }],
    ['https://shop.exa\nmple/a', { kind: 'track', url: 'https://shop.example/a' }],
    ['https+notrack://shop.example/a', { kind: 'notrack', url: 'https://shop.example/a' }],
    ['HTTP+NOTRACK://shop.example/a', { kind: 'notrack', url: 'HTTP://shop.example/a' }],
    ['mailto:ann@example.com', { kind: 'keep' }],
    ['tel:+123', { kind: 'keep' }],
    ['#top', { kind: 'keep' }],
    ['/relative', { kind: 'keep' }],
    ['javascript:alert(1)', { kind: 'keep' }],
    ['https://', { kind: 'keep' }],
    [`${PUBLIC}/unsubscribe/abc`, { kind: 'keep' }],
    [`${PUBLIC}/header-unsubscribe/abc`, { kind: 'keep' }],
    ['https://MAIL.transact.test/Unsubscribe/abc', { kind: 'keep' }],
    [`${PUBLIC}/t/c/abc`, { kind: 'keep' }],
    [`${PUBLIC}/pricing`, { kind: 'track', url: `${PUBLIC}/pricing` }],
    ['https://other.example/unsubscribe/abc', { kind: 'track', url: 'https://other.example/unsubscribe/abc' }],
    ['http://mail.transact.test/unsubscribe/abc', { kind: 'track', url: 'http://mail.transact.test/unsubscribe/abc' }],
  ])('%j → %j', (href, decision) => {
    expect(classifyLink(href, PUBLIC)).toEqual(decision);
  });

  it('honours a PUBLIC_URL with a path', () => {
    expect(classifyLink('https://x.example/mail/unsubscribe/t', 'https://x.example/mail')).toEqual({ kind: 'keep' });
    expect(classifyLink('https://x.example/unsubscribe/t', 'https://x.example/mail').kind).toBe('track');
  });
});

describe('decodeAttribute', () => {
  it.each([
    ['a?b=1&amp;c=2', 'a?b=1&c=2'],
    ['a?b=1&#38;c=2', 'a?b=1&c=2'],
    ['a?b=1&#x26;c=2', 'a?b=1&c=2'],
    ['a?b=1&#38c=2', 'a?b=1&c=2'], // no ';': still decoded, as browsers do
    ['a?b=1&#X26;c=2', 'a?b=1&c=2'],
    ['&quot;&lt;&gt;&apos;', '"<>\''],
    ['a?b=1&amp c', 'a?b=1& c'],
    ['a?x=1&copy=2', 'a?x=1&copy=2'], // not a reference we know: kept
    ['a?x=1&ampc=2', 'a?x=1&ampc=2'], // legacy reference followed by a letter: kept (HTML attribute rule)
    ['&#0;', '\ufffd'],
    ['plain', 'plain'],
  ])('%j → %j', (raw, decoded) => {
    expect(decodeAttribute(raw)).toBe(decoded);
  });
});

describe('rewriteHtmlLinks', () => {
  it.each([
    [
      'double quotes',
      '<a href="https://shop.example/a">A</a>',
      '<a href="https://mail.transact.test/t/c/T1">A</a>',
      ['https://shop.example/a'],
    ],
    [
      'single quotes',
      "<a href='https://shop.example/a'>A</a>",
      '<a href="https://mail.transact.test/t/c/T1">A</a>',
      ['https://shop.example/a'],
    ],
    [
      'no quotes',
      '<a href=https://shop.example/a>A</a>',
      '<a href="https://mail.transact.test/t/c/T1">A</a>',
      ['https://shop.example/a'],
    ],
    [
      'upper case tag and attribute',
      '<A HREF = "https://shop.example/a">A</A>',
      '<A HREF = "https://mail.transact.test/t/c/T1">A</A>',
      ['https://shop.example/a'],
    ],
    [
      'entities decoded for the stored URL',
      '<a href="https://shop.example/?a=1&amp;b=2">x</a>',
      '<a href="https://mail.transact.test/t/c/T1">x</a>',
      ['https://shop.example/?a=1&b=2'],
    ],
    [
      'other attributes kept',
      '<a class="btn" href="https://shop.example/a" target="_blank" title="go > now">x</a>',
      '<a class="btn" href="https://mail.transact.test/t/c/T1" target="_blank" title="go > now">x</a>',
      ['https://shop.example/a'],
    ],
    [
      'href inside another attribute is not a link',
      '<a title="href=https://evil.example" href="https://shop.example/a">x</a>',
      '<a title="href=https://evil.example" href="https://mail.transact.test/t/c/T1">x</a>',
      ['https://shop.example/a'],
    ],
    [
      'data-href is not href',
      '<a data-href="https://shop.example/a">x</a>',
      '<a data-href="https://shop.example/a">x</a>',
      [],
    ],
    [
      'only the first href counts',
      '<a href="https://shop.example/1" href="https://shop.example/2">x</a>',
      '<a href="https://mail.transact.test/t/c/T1" href="https://shop.example/2">x</a>',
      ['https://shop.example/1'],
    ],
    [
      'area',
      '<area shape="rect" href="https://shop.example/map">',
      '<area shape="rect" href="https://mail.transact.test/t/c/T1">',
      ['https://shop.example/map'],
    ],
    [
      'multi-line tag',
      '<a\n  href="https://shop.example/a"\n  style="color:red">x</a>',
      '<a\n  href="https://mail.transact.test/t/c/T1"\n  style="color:red">x</a>',
      ['https://shop.example/a'],
    ],
    ['mailto kept', '<a href="mailto:help@shop.example">mail</a>', '<a href="mailto:help@shop.example">mail</a>', []],
    [
      'notrack resolved, untracked',
      '<a href="https+notrack://shop.example/?a=1&amp;b=2">x</a>',
      '<a href="https://shop.example/?a=1&amp;b=2">x</a>',
      [],
    ],
    ['unsubscribe kept', `<a href="${PUBLIC}/unsubscribe/tok">u</a>`, `<a href="${PUBLIC}/unsubscribe/tok">u</a>`, []],
    [
      'link and base tags kept',
      '<link rel="stylesheet" href="https://cdn.example/s.css"><base href="https://shop.example/">',
      '<link rel="stylesheet" href="https://cdn.example/s.css"><base href="https://shop.example/">',
      [],
    ],
    [
      'abbr is not a',
      '<abbr href="https://shop.example/a">x</abbr>',
      '<abbr href="https://shop.example/a">x</abbr>',
      [],
    ],
    ['a without href', '<a name="top">x</a>', '<a name="top">x</a>', []],
    [
      'unbalanced quote left alone',
      '<a href="https://shop.example/a>x</a>',
      '<a href="https://shop.example/a>x</a>',
      [],
    ],
    ['relative kept', '<a href="/a">x</a>', '<a href="/a">x</a>', []],
  ])('%s', (_name, html, expected, tracked) => {
    const r = run(() => rewriteHtmlLinks(html, opts));
    expect(r.out).toBe(expected);
    expect(r.tracked).toEqual(tracked);
  });

  it('scans pathological markup in linear time and leaves it as written', () => {
    const html = `${'<a "'.repeat(100_000)}<a href="https://shop.example/late">x</a>`;
    const started = performance.now();
    const r = run(() => rewriteHtmlLinks(html, opts));
    expect(performance.now() - started).toBeLessThan(1000);
    expect(r.out).toBe(html);
  });

  it('without a tracker only resolves +notrack', () => {
    const html = '<a href="https://shop.example/a">a</a><a href="http+notrack://shop.example/b">b</a>';
    expect(rewriteHtmlLinks(html, { publicUrl: PUBLIC })).toBe(
      '<a href="https://shop.example/a">a</a><a href="http://shop.example/b">b</a>',
    );
  });
});

describe('rewriteTextLinks', () => {
  it.each([
    [
      'a bare URL',
      'See https://shop.example/a now',
      'See https://mail.transact.test/t/c/T1 now',
      ['https://shop.example/a'],
    ],
    [
      'sentence punctuation stays outside',
      'Go to https://shop.example/a.',
      'Go to https://mail.transact.test/t/c/T1.',
      ['https://shop.example/a'],
    ],
    [
      'comma and question mark',
      'https://shop.example/a, or https://shop.example/b?',
      'https://mail.transact.test/t/c/T1, or https://mail.transact.test/t/c/T2?',
      ['https://shop.example/a', 'https://shop.example/b'],
    ],
    [
      'parenthesised',
      '(see https://shop.example/a)',
      '(see https://mail.transact.test/t/c/T1)',
      ['https://shop.example/a'],
    ],
    [
      'balanced parentheses inside',
      'https://en.wikipedia.org/wiki/Mail_(x)',
      'https://mail.transact.test/t/c/T1',
      ['https://en.wikipedia.org/wiki/Mail_(x)'],
    ],
    [
      'angle brackets',
      '<https://shop.example/a?b=1&c=2>',
      '<https://mail.transact.test/t/c/T1>',
      ['https://shop.example/a?b=1&c=2'],
    ],
    [
      'query and fragment',
      'https://shop.example/a?b=1#c',
      'https://mail.transact.test/t/c/T1',
      ['https://shop.example/a?b=1#c'],
    ],
    [
      'line end',
      'Link:\r\nhttps://shop.example/a\r\nBye',
      'Link:\r\nhttps://mail.transact.test/t/c/T1\r\nBye',
      ['https://shop.example/a'],
    ],
    ['notrack', 'https+notrack://shop.example/a', 'https://shop.example/a', []],
    ['unsubscribe kept', `Unsubscribe: ${PUBLIC}/unsubscribe/tok`, `Unsubscribe: ${PUBLIC}/unsubscribe/tok`, []],
    [
      'mailto and bare domains kept',
      'mailto:a@b.example or www.shop.example',
      'mailto:a@b.example or www.shop.example',
      [],
    ],
    ['scheme glued to a word kept', 'xhttps://shop.example/a', 'xhttps://shop.example/a', []],
  ])('%s', (_name, text, expected, tracked) => {
    const r = run(() => rewriteTextLinks(text, opts));
    expect(r.out).toBe(expected);
    expect(r.tracked).toEqual(tracked);
  });
});

describe('insertOpenPixel', () => {
  const px = `${PUBLIC}/t/o/abc`;
  const tag =
    `<img src="${px}" width="1" height="1" alt="" ` +
    `style="display:block;width:1px;height:1px;border:0;margin:0;padding:0" />`;
  it.each([
    ['before </body>', '<html><body><p>Hi</p></body></html>', `<html><body><p>Hi</p>${tag}</body></html>`],
    [
      'before the last </BODY >',
      '<body>a</body><!-- </body> --></BODY >',
      `<body>a</body><!-- </body> -->${tag}</BODY >`,
    ],
    ['appended without a body', '<p>Hi</p>', `<p>Hi</p>${tag}`],
  ])('%s', (_name, html, expected) => {
    expect(insertOpenPixel(html, px)).toBe(expected);
  });
});

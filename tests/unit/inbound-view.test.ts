// What the Inbound page makes of a received message (docs/console.md §2 "Inbound"): the HTML left once
// sanitised (no script, handler, form, frame or remote reference; remote loads counted), the verdict tag
// its checks add up to, and the mailbox split for the list.
import { describe, expect, it } from 'vitest';
import { mailboxParts, receivedHtmlDocument, resultLabel, verdictOf } from '../../src/lib/inbound-view.ts';
import { sanitizeReceivedHtml } from '../../src/server/inbound/sanitize-html.ts';

describe('sanitizeReceivedHtml', () => {
  it.each([
    ['<p>Hi<script>alert(1)</script></p>', '<p>Hi</p>', 0],
    ['<p onclick="alert(1)" style="color:red">x</p>', '<p style="color:red">x</p>', 0],
    ['<a href="javascript:alert(1)">x</a>', '<a target="_blank" rel="noopener noreferrer">x</a>', 0],
    [
      '<a href="https://shop.example/o/1">order</a>',
      '<a href="https://shop.example/o/1" target="_blank" rel="noopener noreferrer">order</a>',
      0,
    ],
    ['<img src="https://track.example/p.gif" alt="logo">', '<img alt="logo" />', 1],
    ['<img src="//track.example/p.gif">', '<img />', 1],
    ['<img src="cid:logo@sender" alt="logo">', '<img src="cid:logo@sender" alt="logo" />', 0],
    ['<img src="data:image/png;base64,AAAA">', '<img src="data:image/png;base64,AAAA" />', 0],
    ['<div style="background:url(https://t.example/a.png)">x</div>', '<div style="background:none">x</div>', 1],
    // kept for layout; the frame's CSP refuses the import (tests/e2e/inbound.test.ts)
    [
      '<style>@import url(https://t.example/a.css); p{color:red}</style>',
      '<style>@import url(https://t.example/a.css); p{color:red}</style>',
      0,
    ],
    ['<form action="https://x.example"><input name="p"></form>', '', 0],
    ['<iframe src="https://x.example"></iframe><object data="x"></object>', '', 0],
    ['<meta http-equiv="refresh" content="0;url=https://x.example"><base href="https://x.example/">', '', 0],
    ['<svg onload="alert(1)"><circle/></svg>', '', 0],
    [
      '<table cellpadding="4"><tr><td colspan="2" bgcolor="#fff">x</td></tr></table>',
      '<table cellpadding="4"><tr><td colspan="2" bgcolor="#fff">x</td></tr></table>',
      0,
    ],
  ])('%s', async (input, html, remoteBlocked) => {
    expect(await sanitizeReceivedHtml(input)).toEqual({ html, remoteBlocked });
  });

  it('puts the CSP first in the frame document', () => {
    expect(receivedHtmlDocument('<p>x</p>')).toMatch(
      /^<!DOCTYPE html><meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:;/,
    );
  });
});

describe('verdictOf', () => {
  const auth = (spf: string, dkim: string, dmarc: string, flagged = false) => ({ spf, dkim, dmarc, flagged });
  it.each([
    [auth('pass', 'pass', 'pass'), 'passed'],
    [auth('fail', 'pass', 'pass'), 'passed'],
    [auth('pass', 'none', 'none'), 'passed'],
    [auth('none', 'pass', 'none'), 'passed'],
    // nothing to check is not a failure: no SPF record, no signature, no DMARC policy
    [auth('none', 'none', 'none'), 'unverified'],
    [auth('neutral', 'none', 'none'), 'unverified'],
    [auth('temperror', 'none', 'none'), 'unverified'],
    [auth('softfail', 'none', 'none'), 'failed'],
    [auth('fail', 'none', 'none'), 'failed'],
    [auth('none', 'fail', 'none'), 'failed'],
    [auth('permerror', 'none', 'none'), 'failed'],
    [auth('pass', 'pass', 'fail'), 'failed'],
    [auth('fail', 'none', 'fail', true), 'flagged'],
  ])('%o → %s', (a, verdict) => {
    expect(verdictOf(a)).toBe(verdict);
  });
});

describe('resultLabel', () => {
  it.each([
    ['spf', 'none', 'No SPF record'],
    ['dkim', 'none', 'Not signed'],
    ['dmarc', 'none', 'No policy'],
    ['spf', 'neutral', 'Neutral: no verdict'],
    ['spf', 'pass', 'pass'],
    ['dkim', 'fail', 'fail'],
    ['dmarc', 'fail', 'fail'],
    ['spf', 'softfail', 'softfail'],
  ] as const)('%s %s → %s', (check, result, label) => {
    expect(resultLabel(check, result)).toBe(label);
  });
});

describe('mailboxParts', () => {
  it.each([
    ['Zoë Ünal <zoe@sender.example>', { name: 'Zoë Ünal', address: 'zoe@sender.example' }],
    ['"Ann, Sales" <ann@x.example>', { name: 'Ann, Sales', address: 'ann@x.example' }],
    ['bob@x.example', { name: '', address: 'bob@x.example' }],
  ])('%s', (mailbox, parts) => {
    expect(mailboxParts(mailbox)).toEqual(parts);
  });
});

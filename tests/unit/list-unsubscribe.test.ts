import { describe, expect, it } from 'vitest';
import {
  listUnsubscribeHeaders,
  parseUnsubscribeAddress,
  parseUnsubscribeLocalPart,
  prependListUnsubscribe,
  unsubscribeAddress,
  withListUnsubscribe,
} from '../../src/server/message/list-unsubscribe.ts';
import { verpToken } from '../../src/server/delivery/verp.ts';
import { loadConfig } from '../../src/server/core/config.ts';

const SECRET = 'unit-secret-unit-secret-unit-secret-0123';
const UUID = '0b7c8a52-3f4e-4d1a-9c1e-2a5b6c7d8e9f';
const config = loadConfig({
  TRANSACT_SECRET: SECRET,
  PUBLIC_URL: 'https://mail.example.com/',
  RETURN_PATH_DOMAIN: 'rp.example.com',
  LOG_LEVEL: 'silent',
});

describe('the unsubscribe mailto address', () => {
  it('round-trips the transaction uuid and refuses a changed token', () => {
    const address = unsubscribeAddress(SECRET, UUID, 'rp.example.com');
    expect(address).toMatch(/^unsubscribe\+[0-9a-f]{32}\.[0-9a-f]{12}@rp\.example\.com$/);
    expect(parseUnsubscribeAddress(SECRET, 'RP.example.com', address)).toBe(UUID);
    const local = address.split('@')[0];
    const forged = local.slice(0, -1) + (local.endsWith('0') ? '1' : '0');
    expect(parseUnsubscribeLocalPart(SECRET, forged)).toBeNull();
    expect(parseUnsubscribeLocalPart('another-secret-another-secret-0123456', local)).toBeNull();
    expect(
      parseUnsubscribeAddress(SECRET, 'rp.example.com', address.replace('rp.example.com', 'elsewhere.example')),
    ).toBeNull();
  });

  it('is not a VERP token under another name: the HMACs differ', () => {
    expect(parseUnsubscribeLocalPart(SECRET, `unsubscribe+${verpToken(SECRET, UUID)}`)).toBeNull();
  });
});

describe('listUnsubscribeHeaders', () => {
  it('names the HTTPS page first, then the mailto address, and announces one-click (RFC 8058 §3.1)', () => {
    const headers = listUnsubscribeHeaders(config, 'rp.example.com', UUID);
    expect(headers['List-Unsubscribe']).toBe(
      `<https://mail.example.com/header-unsubscribe/${UUID}>, ` +
        `<mailto:${unsubscribeAddress(SECRET, UUID, 'rp.example.com')}>`,
    );
    expect(headers['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
  });
});

describe('prependListUnsubscribe', () => {
  const headers = {
    'List-Unsubscribe': '<https://a.example/x>, <mailto:u@b.example>',
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
  };

  it("replaces the client's headers (continuation lines too) and leaves the body alone", () => {
    const raw = Buffer.from(
      'From: a@x.example\r\nlist-unsubscribe: <https://old.example/u>,\r\n ' +
        '<mailto:old@x.example>\r\nList-Unsubscribe-Post: List-Unsubscribe=One-Click\r\nSubject: ' +
        's\r\n\r\nList-Unsubscribe: body text\r\n',
    );
    expect(prependListUnsubscribe(raw, headers).toString()).toBe(
      'List-Unsubscribe: <https://a.example/x>,\r\n <mailto:u@b.example>\r\nList-Unsubscribe-Post: ' +
        'List-Unsubscribe=One-Click\r\n' +
        'From: a@x.example\r\nSubject: s\r\n\r\nList-Unsubscribe: body text\r\n',
    );
  });
});

describe('withListUnsubscribe', () => {
  it('adds the headers to a composed message and has DKIM sign both', () => {
    const mail = withListUnsubscribe(config, 'rp.example.com', UUID, {
      headers: { 'X-Order': '1' },
      dkim: { domainName: 'x.example' },
    });
    expect(Object.keys(mail.headers ?? {})).toEqual(['X-Order', 'List-Unsubscribe', 'List-Unsubscribe-Post']);
    expect(mail.dkim.headerFieldNames.split(':')).toEqual(
      expect.arrayContaining(['List-Unsubscribe', 'List-Unsubscribe-Post', 'From']),
    );
  });
});

import { describe, expect, it } from 'vitest';
import { AddressError, normalizeDomain, parseAddress, parseEmail } from '../../src/server/core/addresses.ts';

describe('parseEmail', () => {
  it.each([
    ['user@example.com', 'user@example.com'],
    ['  First.Last+tag@Example.COM ', 'First.Last+tag@example.com'],
    ["o'brien@mail.example.org", "o'brien@mail.example.org"],
    ['user@bücher.example', 'user@xn--bcher-kva.example'],
  ])('%s → %s', (input, expected) => {
    expect(parseEmail(input)).toBe(expected);
  });

  it.each([
    '"a@x y"@victim.example',
    'a@x y@victim.example',
    'no-at-sign',
    '@example.com',
    'user@',
    'user@localhost',
    'user@-bad.example',
    'user@exa_mple.com',
    'two..dots@example.com',
    '.lead@example.com',
    'user@example.c',
    `${'a'.repeat(65)}@example.com`,
    'user(comment)@example.com',
    'user@[127.0.0.1]',
  ])('refuses %s', (input) => {
    expect(() => parseEmail(input)).toThrow(AddressError);
  });
});

describe('parseAddress', () => {
  it('reads a display name', () => {
    expect(parseAddress('Jane Doe <jane@example.com>')).toEqual({ email: 'jane@example.com', name: 'Jane Doe' });
    expect(parseAddress('"Doe, Jane" <jane@example.com>')).toEqual({ email: 'jane@example.com', name: 'Doe, Jane' });
    expect(parseAddress({ email: 'jane@example.com', name: ' Jane ' })).toEqual({
      email: 'jane@example.com',
      name: 'Jane',
    });
  });

  it('refuses header injection and nested brackets', () => {
    expect(() => parseAddress('Jane\r\nBcc: x@evil.example <jane@example.com>')).toThrow(AddressError);
    expect(() => parseAddress({ email: 'jane@example.com', name: 'Jane\nBcc: x@evil.example' })).toThrow(AddressError);
    expect(() => parseAddress('a <b> <jane@example.com>')).toThrow(AddressError);
  });
});

describe('normalizeDomain', () => {
  it('lower-cases and punycodes, or refuses', () => {
    expect(normalizeDomain('Mail.Example.COM.')).toBe('mail.example.com');
    expect(normalizeDomain('localhost')).toBeNull();
    expect(normalizeDomain('a'.repeat(64) + '.com')).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { findBareLineBreak, rewriteHeaders } from '../../src/server/smtp/submission.ts';

const raw = (head: string) => Buffer.from(`${head}\r\n\r\nX-Transact-Group: stays in the body\r\n`);

describe('rewriteHeaders', () => {
  it('drops X-Transact-Group with its continuation lines, but not from the body', () => {
    const out = rewriteHeaders(
      raw('From: a@x.example\r\nX-Transact-Group: Long\r\n name\r\nSubject: s'),
      null,
    ).toString();
    expect(out).toBe('From: a@x.example\r\nSubject: s\r\n\r\nX-Transact-Group: stays in the body\r\n');
  });

  it('adds the given Message-ID and removes an unusable one, so there is exactly one', () => {
    const out = rewriteHeaders(raw('From: a@x.example\r\nMessage-ID: not an id'), '<new@x.example>').toString();
    expect(out.match(/^Message-ID:/gim)).toHaveLength(1);
    expect(out.startsWith('Message-ID: <new@x.example>\r\n')).toBe(true);
  });
});

describe('findBareLineBreak', () => {
  it('finds a lone LF or CR, and accepts CRLF only', () => {
    expect(findBareLineBreak(Buffer.from('a\r\nb\r\n'))).toBe(-1);
    expect(findBareLineBreak(Buffer.from('a\r\nb\n.\n'))).toBe(4);
    expect(findBareLineBreak(Buffer.from('a\rb\r\n'))).toBe(1);
  });
});

import { describe, expect, it } from 'vitest';
import { parseMessageHeaders } from '../../src/server/smtp/headers.ts';

const message = (head: string) => Buffer.from(`${head}\r\n\r\nbody line\r\nFrom: not-a-header@body.example\r\n`);

describe('parseMessageHeaders', () => {
  it('reads addresses, decodes RFC 2047 words, unfolds continuation lines', () => {
    const h = parseMessageHeaders(
      message(
        [
          'From: =?utf-8?B?QmVuY2gg4pyT?= <bench@bench.example>',
          'To: Ann <ann@customer.example>,',
          ' "Doe, Bob" <bob@customer.example>',
          'Cc: carol@customer.example',
          'Reply-To: help@bench.example',
          'Subject: =?utf-8?Q?Benchmark_m=C3=A9ssage?=',
          'Message-ID: <abc@bench.example>',
          'X-Transact-Group: Receipts',
        ].join('\r\n'),
      ),
    );
    expect(h.from).toEqual([{ email: 'bench@bench.example', name: 'Bench ✓' }]);
    expect(h.to).toEqual([
      { email: 'ann@customer.example', name: 'Ann' },
      { email: 'bob@customer.example', name: 'Doe, Bob' },
    ]);
    expect(h.cc).toEqual([{ email: 'carol@customer.example', name: null }]);
    expect(h.replyTo).toEqual([{ email: 'help@bench.example', name: null }]);
    expect(h.subject).toBe('Benchmark méssage');
    expect(h.messageId).toBe('<abc@bench.example>');
    expect(h.group).toBe('Receipts');
  });

  it('reads only the header block, and reports what is missing', () => {
    const h = parseMessageHeaders(message('Subject: no sender'));
    expect(h.from).toEqual([]);
    expect(h.messageId).toBeNull();
    expect(h.group).toBeNull();
  });

  it('sees two From addresses (refused by the caller)', () => {
    expect(parseMessageHeaders(message('From: a@x.example, b@y.example')).from).toHaveLength(2);
    expect(parseMessageHeaders(message('From: a@x.example\r\nFrom: b@y.example')).from).toHaveLength(2);
  });
});

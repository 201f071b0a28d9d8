// The hand-written bounces in tests/fixtures/dsn, with their placeholders filled in: {{VERP}} (the
// envelope recipient, our return path), {{RECIPIENT}} and {{MESSAGE_ID}} (of the bounced message).
import { readFileSync } from 'node:fs';
import path from 'node:path';

const dir = path.resolve(import.meta.dirname, '../fixtures/dsn');

export interface FixtureValues {
  verp: string;
  recipient: string;
  messageId: string;
}

/** The fixture as CRLF text, the line ending SMTP carries (RFC 5321 §2.3.8). */
export function dsnFixture(name: string, values: FixtureValues): string {
  return readFileSync(path.join(dir, name), 'utf8')
    .replaceAll('{{VERP}}', values.verp)
    .replaceAll('{{RECIPIENT}}', values.recipient)
    .replaceAll('{{MESSAGE_ID}}', values.messageId)
    .replace(/\r?\n/g, '\r\n');
}

// A local SMTP server as the far side of delivery in tests: it records every message with its
// envelope, and can answer chosen recipients with a chosen reply (e.g. 550 or 450).
import { SMTPServer } from 'smtp-server';

export interface SunkMessage {
  from: string;
  to: string[];
  raw: Buffer;
  /** When the sink had the whole message. */
  at: Date;
}

export interface SmtpSink {
  port: number;
  url: string;
  messages: SunkMessage[];
  /** Replies for recipients: address → [code, text]. */
  replies: Map<string, [number, string]>;
  waitFor(count: number, timeoutMs?: number): Promise<SunkMessage[]>;
  close(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const messages: SunkMessage[] = [];
  const replies = new Map<string, [number, string]>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const reply = replies.get(address.address.toLowerCase());
      if (reply) {
        const err = new Error(reply[1]) as Error & { responseCode: number };
        err.responseCode = reply[0];
        return callback(err);
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks),
          at: new Date(),
        });
        callback(null);
      });
    },
  });
  // a client that drops mid-session (a killed sender) must not crash the test process
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    messages,
    replies,
    async waitFor(count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (messages.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} messages at the sink, got ${messages.length}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return messages;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

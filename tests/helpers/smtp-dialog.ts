// A raw SMTP conversation over a socket, for protocol tests where a client library would refuse
// to send what we need to send (smuggling sequences, commands out of order, HTTP on the SMTP port).
import { Socket } from 'node:net';

export interface Dialog {
  /** Sends a line (CRLF added) and resolves with the complete reply ("250-…\r\n250 …"). */
  command(line: string): Promise<string>;
  /** Sends bytes as they are and resolves with the next complete reply. */
  raw(data: string | Buffer): Promise<string>;
  /** The greeting line. */
  greeting: string;
  closed(): Promise<void>;
  end(): void;
}

export async function openDialog(port: number): Promise<Dialog> {
  const socket = new Socket();
  let buffer = '';
  const waiters: ((reply: string) => void)[] = [];
  let ended = false;
  const closed = new Promise<void>((resolve) =>
    socket.once('close', () => {
      ended = true;
      while (waiters.length) waiters.shift()!('(closed)');
      resolve();
    }),
  );
  socket.on('data', (chunk) => {
    buffer += chunk.toString('latin1');
    for (;;) {
      const m = /^(?:\d{3}-[^\r\n]*\r\n)*\d{3}(?: [^\r\n]*)?\r\n/.exec(buffer);
      if (!m) break;
      buffer = buffer.slice(m[0].length);
      const waiter = waiters.shift();
      if (waiter) waiter(m[0].trimEnd());
    }
  });
  socket.on('error', () => {});
  const next = () => new Promise<string>((resolve) => (ended ? resolve('(closed)') : waiters.push(resolve)));
  const greetingPromise = next();
  await new Promise<void>((resolve, reject) => socket.connect(port, '127.0.0.1', resolve).once('error', reject));
  const greeting = await greetingPromise;
  return {
    greeting,
    command(line) {
      const reply = next();
      socket.write(`${line}\r\n`);
      return reply;
    },
    raw(data) {
      const reply = next();
      socket.write(data);
      return reply;
    },
    closed: () => closed,
    end: () => socket.end(),
  };
}

/** AUTH PLAIN argument for a username and password. */
export function plainAuth(username: string, password: string): string {
  return Buffer.from(`\u0000${username}\u0000${password}`).toString('base64');
}

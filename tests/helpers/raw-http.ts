// One HTTP/1.1 exchange over a plain socket: the request bytes exactly as given (methods fetch
// refuses, raw control characters, unparseable request lines) and the answer's status line as
// written, which fetch hides (it reports "404 OK" as just 404).
import { connect } from 'node:net';

export interface RawResponse {
  statusLine: string;
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
}

function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', at);
    if (lineEnd === -1) break;
    const size = Number.parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
    if (!size) break;
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** Sends `request` to 127.0.0.1:`port` and reads the first answer (the server closes or says its length). */
export function rawRequest(port: number, request: string, timeoutMs = 10_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${timeoutMs} ms: ${Buffer.concat(chunks).toString('latin1')}`));
    }, timeoutMs);
    const parse = (): RawResponse | undefined => {
      const all = Buffer.concat(chunks);
      const headEnd = all.indexOf('\r\n\r\n');
      if (headEnd === -1) return undefined;
      const [statusLine, ...lines] = all.subarray(0, headEnd).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      let body: Buffer = all.subarray(headEnd + 4);
      if (headers['content-length'] !== undefined) {
        if (body.length < Number(headers['content-length'])) return undefined;
        body = body.subarray(0, Number(headers['content-length']));
      } else if (headers['transfer-encoding'] === 'chunked') {
        if (body.indexOf('\r\n0\r\n\r\n') === -1 && !body.subarray(0, 5).equals(Buffer.from('0\r\n\r\n')))
          return undefined;
        body = dechunk(body);
      } else if (!socket.readableEnded) return undefined;
      return { statusLine, status: Number(statusLine.split(' ')[1]), headers, body: body.toString('utf8') };
    };
    const finish = () => {
      const answer = parse();
      if (!answer) return false;
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
      return true;
    };
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      finish();
    });
    socket.on('end', () => {
      if (!finish()) {
        clearTimeout(timer);
        reject(new Error(`connection closed before a complete answer: ${Buffer.concat(chunks).toString('latin1')}`));
      }
    });
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.write(request, 'latin1');
  });
}

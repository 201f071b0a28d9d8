// The API ceiling for `npm run bench:send`: a bare node:http server that reads the request body
// and answers 202 with a small JSON body. Started pinned to the service's core; says 'ready' over IPC.
import { createServer } from 'node:http';

const port = Number(process.argv[2]);
const answer = Buffer.from(
  '{"data":[{"trans_uuid":"00000000-0000-0000-0000-000000000000","to":"x@example.com","status":"queued"}]}',
);
const server = createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(202, { 'Content-Type': 'application/json', 'Content-Length': answer.length });
    res.end(answer);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(port, '127.0.0.1', () => process.send?.('ready'));
process.on('SIGTERM', () => process.exit(0));
process.on('disconnect', () => process.exit(0));

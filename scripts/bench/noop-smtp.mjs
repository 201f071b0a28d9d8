// The SMTP ceiling for `npm run bench:send`: smtp-server with any AUTH accepted (authOptional) and
// an onData that only drains the message. Configured like the service's submission server
// otherwise (insecure AUTH allowed, same size limit and client cap). Says 'ready' over IPC.
import { SMTPServer } from 'smtp-server';

const port = Number(process.argv[2]);
const server = new SMTPServer({
  name: 'localhost',
  banner: 'noop ESMTP',
  authMethods: ['PLAIN', 'LOGIN'],
  authOptional: true,
  allowInsecureAuth: true,
  size: 36_700_160,
  logger: false,
  maxClients: 1000,
  socketTimeout: 60_000,
  onAuth(auth, _session, callback) {
    callback(null, { user: auth.username });
  },
  onData(stream, _session, callback) {
    stream.on('data', () => {});
    stream.on('end', () => callback(null, '2.0.0 Queued'));
  },
});
server.on('error', () => {});
server.listen(port, '127.0.0.1', () => process.send?.('ready'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
process.on('disconnect', () => process.exit(0));

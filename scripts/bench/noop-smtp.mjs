// The SMTP ceiling for `npm run bench:send`: the harness's SMTP receiver with any AUTH accepted
// (authOptional), draining each message unread. Configured like the service's submission server
// otherwise (insecure AUTH allowed, STARTTLS offered, same size limit and client cap). Says
// 'ready' over IPC.
import { startSmtpSink } from '../lib/service-harness.mjs';

const sink = await startSmtpSink({
  port: Number(process.argv[2]),
  keep: false,
  raw: false,
  dataReply: '2.0.0 Queued',
  smtp: {
    name: 'localhost',
    banner: 'noop ESMTP',
    authMethods: ['PLAIN', 'LOGIN'],
    allowInsecureAuth: true,
    disabledCommands: [],
    size: 36_700_160,
    maxClients: 1000,
    socketTimeout: 60_000,
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username });
    },
  },
});
process.send?.('ready');
process.on('SIGTERM', () => sink.close().then(() => process.exit(0)));
process.on('disconnect', () => process.exit(0));

// The smtp role (main.ts loads this module only when ROLES has smtp): submission on SMTP_PORT,
// and the bounce receiver (the MX of the return-path and receiving domains) when BOUNCE_SMTP_PORT
// is set. smtp-server and the inbound parsers are read by no process without the role.
import { startBounceReceiver } from './bounces/receiver.ts';
import type { AppContext } from './core/context.ts';
import { startSubmissionServer } from './smtp/submission.ts';

/** Starts the listeners; resolves with the functions that stop them within the grace period. */
export async function startSmtpRole(ctx: AppContext): Promise<Array<() => Promise<void>>> {
  const { config } = ctx;
  const submission = await startSubmissionServer(ctx);
  const stops = [() => submission.close(config.shutdownGraceSeconds * 1000)];
  if (config.bounceSmtpPort > 0) {
    const bounces = await startBounceReceiver(ctx);
    stops.push(() => bounces.close());
  }
  return stops;
}

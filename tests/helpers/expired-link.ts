// A download link that has expired, made through the API as a client makes one: the API takes only
// an expiry in the future (src/server/attachments/attachments.service.ts), so the link is made to
// expire a few seconds ahead and that moment is waited out.
import { setTimeout as sleep } from 'node:timers/promises';

/** How far ahead the link expires: room for the create call on a loaded machine. */
const AHEAD_SECONDS = 5;
/** Tries before giving up, each with a fresh expiry (a call slower than AHEAD_SECONDS is refused). */
const ATTEMPTS = 3;

/**
 * Calls `create` with an expiry a few seconds ahead (it throws when the API refuses the link),
 * waits until that second is past, and returns what `create` returned.
 */
export async function createExpiredLink<T>(create: (expiryTimestamp: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const expiry = Math.floor(Date.now() / 1000) + AHEAD_SECONDS;
    let made: T;
    try {
      made = await create(expiry);
    } catch (err) {
      if (attempt === ATTEMPTS) throw err;
      continue;
    }
    const left = (expiry + 1) * 1000 - Date.now();
    if (left > 0) await sleep(left);
    return made;
  }
}

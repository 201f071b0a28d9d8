// Records that were answered already (a tracking hit, a delivery outcome) are written in batches:
// up to `flushMs` or `flushSize` items per database transaction, one write at a time. A crash loses
// at most the buffered window.
//
// A write that fails is not the end of its items: the batch is tried again item by item (so one
// bad item cannot take the others with it), and items that still fail for a passing reason (the
// database restarting, a deadlock) wait 0.2 s, 0.4 s, … up to a minute between tries — about four
// minutes in all, while the delivery worker keeps renewing those messages' leases — before they are
// given up with an error in the log. An item the database refuses as invalid (SQLSTATE classes 22 and 23, e.g. its
// transaction was deleted meanwhile) is given up at once.
import type { Logger } from 'pino';

const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 60_000;
const MAX_ATTEMPTS = 12;
/** Items waiting for a retry, at most; beyond it the oldest are given up (a long outage must not exhaust memory). */
const MAX_RETRYING = 100_000;

export interface BatchWriterOptions<T> {
  /** What the items are, for the log: 'opens and clicks', 'delivery outcomes'. */
  what: string;
  logger: Logger;
  flushMs: number;
  flushSize: number;
  /** Writes the items in one database transaction. */
  write(items: T[]): Promise<void>;
}

interface Pending<T> {
  item: T;
  /** Failed writes so far. */
  attempts: number;
}

/** Whether the database refused the data itself, so trying again cannot succeed. */
export function isPermanentDatabaseError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('23'));
}

export class BatchWriter<T> {
  readonly #opts: BatchWriterOptions<T>;
  #buffered: Pending<T>[] = [];
  #timer: NodeJS.Timeout | null = null;
  #retrying: Pending<T>[] = [];
  #retryTimer: NodeJS.Timeout | null = null;
  #writing: Promise<void> = Promise.resolve();
  /** A flush waiting for the write before it: items added meanwhile join it (group commit). */
  #waitingFlush: Promise<void> | null = null;

  constructor(opts: BatchWriterOptions<T>) {
    this.#opts = opts;
  }

  add(item: T): void {
    this.#buffered.push({ item, attempts: 0 });
    if (this.#buffered.length >= this.#opts.flushSize) void this.flush();
    else if (!this.#timer) {
      this.#timer = setTimeout(() => void this.flush(), this.#opts.flushMs);
      this.#timer.unref();
    }
  }

  /**
   * Writes the buffered items, and those waiting for a retry, as soon as the write in progress is
   * done; resolves when written (or failed again). The batch is taken when its turn comes, so
   * everything added while the previous write ran goes in one transaction.
   */
  flush(): Promise<void> {
    for (const timer of [this.#timer, this.#retryTimer]) if (timer) clearTimeout(timer);
    this.#timer = null;
    this.#retryTimer = null;
    if (!this.#waitingFlush) {
      this.#waitingFlush = this.#writing.then(() => {
        this.#waitingFlush = null;
        const batch = [...this.#retrying.splice(0), ...this.#buffered.splice(0)];
        return batch.length > 0 ? this.#record(batch) : undefined;
      });
      this.#writing = this.#waitingFlush;
    }
    return this.#waitingFlush;
  }

  #write(batch: Pending<T>[]): Promise<void> {
    if (batch.length === 0) return this.#writing;
    this.#writing = this.#writing.then(() => this.#record(batch));
    return this.#writing;
  }

  async #record(batch: Pending<T>[]): Promise<void> {
    try {
      await this.#opts.write(batch.map((p) => p.item));
      return;
    } catch (err) {
      if (batch.length === 1) return this.#failed(batch, err);
    }
    // one at a time: an item the database refuses must not lose the others
    const refused: Pending<T>[] = [];
    const later: Pending<T>[] = [];
    let refusal: unknown;
    let failure: unknown;
    for (const pending of batch) {
      try {
        await this.#opts.write([pending.item]);
      } catch (err) {
        if (isPermanentDatabaseError(err)) {
          refused.push(pending);
          refusal = err;
        } else {
          later.push(pending);
          failure = err;
        }
      }
    }
    if (refused.length > 0) this.#failed(refused, refusal);
    if (later.length > 0) this.#failed(later, failure);
  }

  #failed(failed: Pending<T>[], err: unknown): void {
    const { logger, what } = this.#opts;
    const permanent = isPermanentDatabaseError(err);
    const again = permanent ? [] : failed.filter((p) => ++p.attempts < MAX_ATTEMPTS);
    const lost = failed.length - again.length;
    if (lost > 0)
      logger.error(
        { err, count: lost, attempts: permanent ? 1 : MAX_ATTEMPTS },
        `${what} given up: the database would not record them`,
      );
    else logger.warn({ err, count: failed.length }, `recording ${what} failed; trying again`);
    this.#retrying.push(...again);
    const over = this.#retrying.length - MAX_RETRYING;
    if (over > 0) {
      this.#retrying.splice(0, over);
      logger.error({ count: over }, `${what} given up: too many waiting for the database`);
    }
    if (this.#retrying.length > 0 && !this.#retryTimer) {
      const delay = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** this.#retrying[0].attempts);
      this.#retryTimer = setTimeout(() => {
        this.#retryTimer = null;
        void this.#write(this.#retrying.splice(0));
      }, delay);
      this.#retryTimer.unref();
    }
  }
}

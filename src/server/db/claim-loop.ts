// The one claim-and-poll loop of the three workers (delivery, webhooks, report exports; see
// docs/architecture.md §6): claim what is due → process each item beside the others (send it,
// record its outcome) → claim again while there is room and work, else wait for the poll or a
// wake-up. What differs per worker is what it claims and how much room it has; the loop, the
// waiting, the wake-ups that must not be lost and the stop with a grace period are written here once.
import type { Logger } from 'pino';

export interface ClaimLoopSteps<T> {
  /** Names the worker in log lines. */
  what: string;
  logger: Logger;
  /** How long to wait for work when a claim found none and nobody woke the loop. */
  pollMs: number;
  /** How many items may be claimed now, given how many are in flight (0: wait). */
  room(inFlight: number): number;
  /** Takes up to `limit` due items (marks them claimed with a lease in the database). */
  claim(limit: number): Promise<T[]>;
  /** Handles one claimed item to the end (its outcome recorded or handed to a batch writer). */
  process(item: T): Promise<void>;
  /**
   * Whether a finished item wakes the loop at once to claim again (default true). A worker whose
   * claims cost more than a short wait says false and pokes the loop itself when it matters.
   */
  wakeWhenDone?: boolean;
}

export class ClaimLoop<T> {
  readonly #steps: ClaimLoopSteps<T>;
  #running = false;
  #inFlight = 0;
  #wake: (() => void) | null = null;
  // a wake-up that came while the loop was not waiting (mid-claim) must not be lost
  #woken = false;
  #loop: Promise<void> = Promise.resolve();
  readonly #settled = new Set<() => void>();

  constructor(steps: ClaimLoopSteps<T>) {
    this.#steps = steps;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  get running(): boolean {
    return this.#running;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#run();
  }

  /** Wakes the loop now (new work was queued, or room was made). */
  poke(): void {
    this.#woken = true;
    this.#wake?.();
  }

  /**
   * Stops claiming and waits for the items in flight, for at most `graceMs`. Answers true when
   * all finished; false leaves the rest running (the worker aborts or releases them, then may
   * await `idle()`).
   */
  async stop(graceMs = Number.POSITIVE_INFINITY): Promise<boolean> {
    this.#running = false;
    this.poke();
    await this.#loop;
    if (this.#inFlight === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<false>((resolve) => {
      if (Number.isFinite(graceMs)) timer = setTimeout(() => resolve(false), graceMs);
    });
    const done = await Promise.race([this.idle().then(() => true), graceOver]);
    clearTimeout(timer);
    return done;
  }

  /** Resolves once nothing is in flight. */
  idle(): Promise<void> {
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#settled.add(resolve));
  }

  async #run(): Promise<void> {
    const { logger, what } = this.#steps;
    while (this.#running) {
      let claimed: T[] = [];
      const room = this.#steps.room(this.#inFlight);
      if (room > 0) {
        this.#woken = false; // this claim sees whatever the wake-up was about
        try {
          claimed = await this.#steps.claim(room);
        } catch (err) {
          logger.error({ err }, `claiming ${what} failed`);
        }
      }
      for (const item of claimed) this.#start(item);
      if (claimed.length > 0) continue;
      if (this.#woken) {
        this.#woken = false;
        continue;
      }
      if (!this.#running) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.#steps.pollMs);
        timer.unref(); // a worker alone does not keep the process alive; the servers do
        this.#wake = () => {
          clearTimeout(timer);
          this.#wake = null;
          resolve();
        };
      });
      this.#wake = null;
    }
  }

  #start(item: T): void {
    this.#inFlight++;
    void this.#steps
      .process(item)
      .catch((err) => this.#steps.logger.error({ err }, `processing ${this.#steps.what} failed`))
      .finally(() => {
        this.#inFlight--;
        if (this.#inFlight === 0) {
          for (const resolve of this.#settled) resolve();
          this.#settled.clear();
        }
        // room was made: the loop claims again at once instead of at the next poll
        if (this.#steps.wakeWhenDone ?? true) this.poke();
      });
  }
}

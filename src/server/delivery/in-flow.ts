// Flow control between acceptance and delivery, the way Postfix's `in_flow_delay` does it: when
// delivery falls behind, a new SMTP message waits before its MAIL FROM is answered (up to
// SMTP_IN_FLOW_DELAY_MS), so senders slow down to the rate mail leaves instead of filling a queue
// whose every message then waits longer. Nothing is refused: after the pause the message is taken
// whether or not delivery caught up (docs/architecture.md §5.1).
//
// "Behind" is measured where it shows, by the delivery worker: at each claim, how long the oldest
// first attempt it took had waited since it was accepted. A claim that emptied the due queue means
// delivery keeps up. Only a worker in this process reports, so a process that only accepts mail
// (WORKER_ROLES without delivery) never pauses.
import type { AppContext } from '../core/context.ts';

/** Where the pauses and the lag are reported (the context's metrics). */
export interface InFlowHooks {
  delayed?: () => void;
  lag?: (ms: number) => void;
}

export class InFlow {
  readonly #lagLimitMs: number;
  readonly #maxDelayMs: number;
  #lagMs = 0;
  readonly #waiting = new Set<() => void>();
  readonly #metrics: InFlowHooks;

  constructor(lagLimitMs: number, maxDelayMs: number, metrics: InFlowHooks = {}) {
    this.#lagLimitMs = lagLimitMs;
    this.#maxDelayMs = maxDelayMs;
    this.#metrics = metrics;
  }

  /** The delivery lag the worker saw at its last claim, in milliseconds (0: it keeps up). */
  get lagMs(): number {
    return this.#lagMs;
  }

  get waiting(): number {
    return this.#waiting.size;
  }

  /** From the delivery worker at each claim: the lag it saw. Catching up lets every waiting message go. */
  observe(lagMs: number): void {
    this.#lagMs = lagMs;
    this.#metrics.lag?.(lagMs);
    if (lagMs <= this.#lagLimitMs) this.#releaseAll();
  }

  /** Resolves at once while delivery keeps up; otherwise when it catches up or after the longest pause. */
  admit(): Promise<void> {
    if (this.#maxDelayMs <= 0 || this.#lagMs <= this.#lagLimitMs) return Promise.resolve();
    this.#metrics.delayed?.();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#waiting.delete(done);
        resolve();
      };
      const timer = setTimeout(done, this.#maxDelayMs);
      this.#waiting.add(done);
    });
  }

  /** Lets every waiting message go (delivery caught up, or the service is stopping). */
  #releaseAll(): void {
    for (const done of [...this.#waiting]) done();
  }

  close(): void {
    this.#lagMs = 0;
    this.#releaseAll();
  }
}

declare module '../core/context.ts' {
  interface AppContext {
    /** SMTP's flow control against the delivery lag (create-context.ts; the delivery worker closes it). */
    readonly inFlow: InFlow;
  }
}

/** The context's flow control, made from its configuration. */
export function createInFlow(ctx: Pick<AppContext, 'config' | 'metrics'>): InFlow {
  return new InFlow(ctx.config.smtpInFlowLagMs, ctx.config.smtpInFlowDelayMs, {
    delayed: () => ctx.metrics.smtpInFlowDelays.inc(),
    lag: (ms) => ctx.metrics.deliveryLag.set(ms / 1000),
  });
}

/**
 * The lag a claim shows: 0 when it took fewer than it asked for (the due queue is empty, delivery
 * keeps up), else how long the oldest first attempt in it waited since acceptance. Retries are left
 * out: they wait by design (their backoff), not because delivery is behind.
 */
export function lagOfClaim(
  claimed: { attempts: number; queued_at: Date }[],
  asked: number,
  now = Date.now(),
): number | null {
  if (claimed.length < asked) return 0;
  let oldest = Number.POSITIVE_INFINITY;
  for (const c of claimed) if (c.attempts === 1 && c.queued_at.getTime() < oldest) oldest = c.queued_at.getTime();
  return oldest === Number.POSITIVE_INFINITY ? null : Math.max(0, now - oldest);
}

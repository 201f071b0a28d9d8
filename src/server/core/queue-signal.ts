// Wakes idle delivery workers when mail is queued: in-process listeners for workers in the same
// process, and PostgreSQL's LISTEN/NOTIFY (`transact_queue`, sent inside the accepting transaction)
// for workers in other processes. Workers also poll, so a lost signal only costs latency.
import { EventEmitter } from 'node:events';
import type { AppContext } from './context.ts';

/** The context's signal (AppContext.queueSignal); any number of workers may listen. */
export function createQueueSignal(): EventEmitter {
  const e = new EventEmitter();
  e.setMaxListeners(0);
  return e;
}

export function notifyQueued(ctx: Pick<AppContext, 'queueSignal'>): void {
  ctx.queueSignal.emit('queued');
}

/** Calls `listener` whenever mail is queued in this process; returns the unsubscribe function. */
export function onQueued(ctx: Pick<AppContext, 'queueSignal'>, listener: () => void): () => void {
  ctx.queueSignal.on('queued', listener);
  return () => ctx.queueSignal.off('queued', listener);
}

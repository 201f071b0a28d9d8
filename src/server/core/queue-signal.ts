// Wakes idle delivery workers when mail is queued: in-process listeners for workers in the same
// process, and PostgreSQL's LISTEN/NOTIFY (`transact_queue`, sent inside the accepting transaction)
// for workers in other processes. Workers also poll, so a lost signal only costs latency.
import { EventEmitter } from 'node:events';
import type { AppContext } from './context.ts';

const emitters = new WeakMap<AppContext, EventEmitter>();

function emitterOf(ctx: AppContext): EventEmitter {
  let e = emitters.get(ctx);
  if (!e) {
    e = new EventEmitter();
    e.setMaxListeners(0);
    emitters.set(ctx, e);
  }
  return e;
}

export function notifyQueued(ctx: AppContext): void {
  emitters.get(ctx)?.emit('queued');
}

/** Calls `listener` whenever mail is queued in this process; returns the unsubscribe function. */
export function onQueued(ctx: AppContext, listener: () => void): () => void {
  const e = emitterOf(ctx);
  e.on('queued', listener);
  return () => e.off('queued', listener);
}

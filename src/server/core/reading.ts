// An answer that many callers ask for and that may be a little old: the free space under DATA_DIR,
// whether the database answers, the system sender. Made once per process in create-context.ts.

/** Asks `read` at most once per `ttlMs` (Infinity: once); callers share its answer, a failed one is asked again. */
export class Reading<T> {
  readonly #read: () => Promise<T>;
  readonly #ttlMs: number;
  #last: { at: number; answer: Promise<T> } | undefined;

  constructor(read: () => Promise<T>, ttlMs: number) {
    this.#read = read;
    this.#ttlMs = ttlMs;
  }

  get(): Promise<T> {
    const now = Date.now();
    if (this.#last && now - this.#last.at < this.#ttlMs) return this.#last.answer;
    const last = { at: now, answer: this.#read() };
    this.#last = last;
    last.answer.catch(() => {
      if (this.#last === last) this.#last = undefined;
    });
    return last.answer;
  }
}

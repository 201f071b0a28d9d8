// Group commit for writes a caller must wait for: while one write runs, the calls that arrive wait
// and then go together as the next one, so concurrent callers share a statement instead of each
// paying a round trip (one `links` insert per delivered message was the most frequent
// statement of a load run). The first call is written at once: nothing waits for a timer.
interface Waiting<T> {
  items: T[];
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class GroupWrite<T> {
  readonly #write: (items: T[]) => Promise<void>;
  readonly #maxItems: number;
  #waiting: Waiting<T>[] = [];
  #running = false;

  constructor(write: (items: T[]) => Promise<void>, maxItems = 1000) {
    this.#write = write;
    this.#maxItems = maxItems;
  }

  /** Resolves once `items` are written (with whatever joined them), rejects if their write failed. */
  add(items: T[]): Promise<void> {
    if (items.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.#waiting.push({ items, resolve, reject });
      if (!this.#running) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#running = true;
    while (this.#waiting.length > 0) {
      let count = 0;
      let take = 0;
      while (
        take < this.#waiting.length &&
        (take === 0 || count + this.#waiting[take].items.length <= this.#maxItems)
      ) {
        count += this.#waiting[take].items.length;
        take++;
      }
      const batch = this.#waiting.splice(0, take);
      try {
        await this.#write(batch.flatMap((w) => w.items));
        for (const w of batch) w.resolve();
      } catch (err) {
        if (batch.length === 1) {
          batch[0].reject(err);
          continue;
        }
        // one caller's bad rows must not fail the others: each is written on its own
        for (const w of batch) {
          try {
            await this.#write(w.items);
            w.resolve();
          } catch (single) {
            w.reject(single);
          }
        }
      }
    }
    this.#running = false;
  }
}

interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit: items submitted under one key while a flush of that key is under way wait and go
 * together in the next flush, so one transaction (one commit, one lock of the hot row) serves
 * many callers. Each caller gets its own item's result, and only after the flush that carried it
 * finished. Batches form by themselves under load; a lone item is flushed on the next turn.
 */
export class GroupCommit<T, R> {
  private readonly waiting = new Map<string, Waiting<T, R>[]>();
  private readonly draining = new Set<Promise<void>>();

  constructor(
    private readonly flush: (key: string, items: T[]) => Promise<R[]>,
    private readonly maxBatch: number,
  ) {}

  submit(key: string, item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const queue = this.waiting.get(key);
      if (queue) {
        queue.push({ item, resolve, reject });
        return;
      }
      this.waiting.set(key, [{ item, resolve, reject }]);
      // The next turn, so that requests parsed in the same tick join this first batch.
      const drained = new Promise<void>((done) => setImmediate(() => void this.drain(key).finally(done)));
      this.draining.add(drained);
      void drained.finally(() => this.draining.delete(drained));
    });
  }

  /** Waits until everything submitted so far is flushed (shutdown, tests). */
  async flushed(): Promise<void> {
    while (this.draining.size) await Promise.all([...this.draining]);
  }

  private async drain(key: string): Promise<void> {
    for (;;) {
      const queue = this.waiting.get(key);
      if (!queue || queue.length === 0) {
        this.waiting.delete(key);
        return;
      }
      const batch = queue.splice(0, this.maxBatch);
      try {
        const results = await this.flush(
          key,
          batch.map((w) => w.item),
        );
        batch.forEach((w, i) => w.resolve(results[i]));
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
  }
}

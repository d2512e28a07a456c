import { ServiceUnavailableProblem } from './problem';

/** 503 for a body that found the process's body budget spent and waited its longest. */
export class BodyBudgetSpentProblem extends ServiceUnavailableProblem {
  readonly statusCode = 503;
  constructor() {
    super('The service is reading or holding as many request bodies as it can; retry shortly.', 1);
  }
}

interface Waiter {
  cost: number;
  grant: () => void;
  timer: NodeJS.Timeout;
}

/**
 * How much memory the request bodies of one process may hold at once (bytes being read and the
 * heap their parsed values are estimated to take, until each request is answered), so that many
 * large bodies at once cannot exceed the heap. A body that does not fit waits, first come first
 * served (a large one waiting holds back the smaller ones behind it, so it is never starved); a
 * body larger than the whole budget goes when it is alone. Past `maxWaiters` waiting, or after
 * `maxWaitMs`, the request is refused with 503 and Retry-After.
 */
export class BodyBudget {
  private used = 0;
  private readonly queue: Waiter[] = [];

  constructor(
    readonly capacity: number,
    private readonly maxWaiters: number,
    private readonly maxWaitMs: number,
    /** The refusal of one that could not wait (the body budget's 503 unless told). */
    private readonly refusal: () => Error = () => new BodyBudgetSpentProblem(),
  ) {}

  /** Bytes held now (for metrics and tests). */
  get held(): number {
    return this.used;
  }

  /** Takes `cost` at once when it fits and nobody waits; otherwise waits in line (or is refused). */
  acquire(cost: number): Promise<void> | undefined {
    if (this.queue.length === 0 && this.fits(cost)) {
      this.used += cost;
      return undefined;
    }
    if (this.queue.length >= this.maxWaiters) return Promise.reject(this.refusal());
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        cost,
        grant: resolve,
        timer: setTimeout(() => {
          this.queue.splice(this.queue.indexOf(waiter), 1);
          reject(this.refusal());
          // The head left: the next in line may fit now.
          this.drain();
        }, this.maxWaitMs),
      };
      this.queue.push(waiter);
    });
  }

  release(cost: number): void {
    this.used -= cost;
    this.drain();
  }

  /** Runs `work` holding `cost` (waiting in line for it first), released however it ends. */
  async holding<T>(cost: number, work: () => Promise<T>): Promise<T> {
    await this.acquire(cost);
    try {
      return await work();
    } finally {
      this.release(cost);
    }
  }

  private fits(cost: number): boolean {
    return this.used === 0 || this.used + cost <= this.capacity;
  }

  private drain(): void {
    while (this.queue.length > 0 && this.fits(this.queue[0].cost)) {
      const next = this.queue.shift() as Waiter;
      clearTimeout(next.timer);
      this.used += next.cost;
      next.grant();
    }
  }
}

import { BodyBudget } from './body-budget';
import { ServiceUnavailableProblem } from './problem';

export interface WorkLimitOptions {
  /** What is limited, in the refusal's words: "CSV exports", "audiences". */
  what: string;
  /** Runs at once in this process. */
  atOnce: number;
  /** Waiting in this process for one of those places; past it a new one is refused at once. */
  waiting: number;
  /** Longest wait for a place before the refusal. */
  waitMs: number;
  /** Runs and waits of one key (an account) at once in this process; past it refused at once. */
  perKey: number;
  /** The refusal's Retry-After. */
  retryAfterSeconds: number;
}

/**
 * How many heavy jobs of one kind (exports, estimates, launches, imports) a process runs at once,
 * and how many one account may have running or waiting: a tenant's data can make one job large,
 * but never make the process hold more than `atOnce` of them. Past the line, or after `waitMs` in
 * it, the request is refused with 503 and Retry-After (nothing was started).
 */
export class WorkLimit {
  private readonly slots: BodyBudget;
  private readonly perKey = new Map<string, number>();
  /** Running and waiting. */
  private total = 0;

  constructor(private readonly opts: WorkLimitOptions) {
    this.slots = new BodyBudget(opts.atOnce, opts.waiting, opts.waitMs, () => this.refusal());
  }

  /** Jobs running and waiting in this process. */
  get entered(): number {
    return this.total;
  }

  /**
   * A place in line for `key`'s job, or the 503 thrown at once (the line is full, or the key has
   * as many as it may): resolves with its release once the job may run (or rejects with the 503
   * after `waitMs` in line). The caller releases it however the job ends.
   */
  enter(key: string): Promise<() => void> {
    const mine = this.perKey.get(key) ?? 0;
    if (mine >= this.opts.perKey) throw this.refusal(`the account already has ${mine} under way or waiting`);
    if (this.total >= this.opts.atOnce + this.opts.waiting) throw this.refusal();
    this.perKey.set(key, mine + 1);
    this.total += 1;
    const leave = () => {
      this.total -= 1;
      const n = (this.perKey.get(key) ?? 1) - 1;
      if (n > 0) this.perKey.set(key, n);
      else this.perKey.delete(key);
    };
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      leave();
      this.slots.release(1);
    };
    return Promise.resolve(this.slots.acquire(1)).then(
      () => release,
      (err: unknown) => {
        leave();
        throw err;
      },
    );
  }

  /** Runs `work` in a place for `key`, released however it ends. */
  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const release = await this.enter(key);
    try {
      return await work();
    } finally {
      release();
    }
  }

  private refusal(why?: string): ServiceUnavailableProblem {
    return new ServiceUnavailableProblem(
      `The gateway is running as many ${this.opts.what} as it may at once${why ? ` (${why})` : ''}; retry shortly.`,
      this.opts.retryAfterSeconds,
    );
  }
}

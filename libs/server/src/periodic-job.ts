import { Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';

/**
 * A pass that runs every `everyMs` (0: never on its own) and on demand. A pass already under way
 * is joined, not doubled; `poke` (new work arrived) has one more follow it instead, since it may
 * have looked before the work was there. Stopping waits for them, so shutdown never cuts one in
 * half. The timer is unref'd: it never keeps a process alive.
 */
export class PeriodicJob<T> {
  private timer?: NodeJS.Timeout;
  private running?: Promise<T>;
  /** A poke arrived during the pass under way. */
  private again = false;

  constructor(
    private readonly name: string,
    private readonly everyMs: number,
    private readonly pass: () => Promise<T>,
    private readonly logger: Logger,
  ) {}

  start(): void {
    if (this.everyMs <= 0 || this.timer) return;
    this.timer = setInterval(
      () => void this.run().catch((err) => this.logger.warn({ err }, `${this.name} failed`)),
      this.everyMs,
    );
    this.timer.unref();
  }

  /** One pass now, or the one under way. */
  run(): Promise<T> {
    this.running ??= this.pass().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.poke();
      }
    });
    return this.running;
  }

  /** New work arrived: a pass now or, when one is under way, another right after it. Failures are logged. */
  poke(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    void this.run().catch((err) => this.logger.warn({ err }, `${this.name} failed`));
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    while (this.running) await this.running.catch(() => undefined);
  }
}

/**
 * A Nest provider whose `pass` runs every `everyMs` (0: only on demand) from bootstrap until
 * shutdown, which waits for a pass under way. `runNow` runs one (or joins the one under way).
 */
export abstract class PeriodicService<T> implements OnApplicationBootstrap, OnApplicationShutdown {
  protected readonly logger: Logger;
  private readonly job: PeriodicJob<T>;

  constructor(name: string, everyMs: number) {
    this.logger = new Logger(this.constructor.name);
    this.job = new PeriodicJob(name, everyMs, () => this.pass(), this.logger);
  }

  protected abstract pass(): Promise<T>;

  onApplicationBootstrap(): void {
    this.job.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.job.stop();
  }

  protected runNow(): Promise<T> {
    return this.job.run();
  }
}

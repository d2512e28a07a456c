import { Injectable, OnModuleDestroy } from '@nestjs/common';

/**
 * Timers of the emulator (status callbacks, moderation, webhook retries), cancelled together when
 * the sandbox stops so that a stopped sandbox never calls anyone.
 */
@Injectable()
export class SandboxClock implements OnModuleDestroy {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly waiters = new Set<() => void>();
  private stopped = false;

  get isStopped(): boolean {
    return this.stopped;
  }

  /** Runs `fn` after `ms`; returns a cancel function. */
  schedule(ms: number, fn: () => void): () => void {
    if (this.stopped) return () => undefined;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.stopped) fn();
    }, ms);
    this.timers.add(timer);
    return () => {
      clearTimeout(timer);
      this.timers.delete(timer);
    };
  }

  /** Resolves after `ms`, or false at once when the sandbox stops meanwhile. */
  sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      if (this.stopped) return resolve(false);
      const done = () => {
        this.waiters.delete(abort);
        resolve(true);
      };
      const abort = () => {
        cancel();
        resolve(false);
      };
      const cancel = this.schedule(ms, done);
      this.waiters.add(abort);
    });
  }

  /** A promise that resolves when the sandbox stops (ends requests held open by the hang fault). */
  untilStopped(): { promise: Promise<void>; release: () => void } {
    let release!: () => void;
    const promise = new Promise<void>((resolve) => {
      release = () => {
        this.waiters.delete(release);
        resolve();
      };
    });
    if (this.stopped) release();
    else this.waiters.add(release);
    return { promise, release };
  }

  onModuleDestroy(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const w of [...this.waiters]) w();
    this.waiters.clear();
  }
}

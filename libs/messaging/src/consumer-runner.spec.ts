import type { JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { ConsumerRunner } from './consumer-runner';

type Callback = (err: Error | null, msg: unknown) => void;

/**
 * A NATS connection in front of a consumer that is always empty: every pull is answered "404 No
 * Messages" a few milliseconds later. Records when each pull was asked, and can publish on the
 * runner's wake subject while a pull is under way.
 */
class EmptyConsumer {
  readonly pulls: number[] = [];
  private readonly subs = new Map<string, Callback>();
  /** Called with the pull's index as each pull is asked. */
  onPull: (index: number) => void = () => undefined;

  subscribe(subject: string, opts: { callback: Callback }) {
    this.subs.set(subject, opts.callback);
    let closed = false;
    return {
      unsubscribe: () => {
        closed = true;
        this.subs.delete(subject);
      },
      isClosed: () => closed,
    };
  }

  publish(subject: string, _data: unknown, opts?: { reply?: string }): void {
    if (!subject.startsWith('$JS.API.CONSUMER.MSG.NEXT.') || !opts?.reply) return;
    const reply = opts.reply;
    this.pulls.push(Date.now());
    this.onPull(this.pulls.length - 1);
    setTimeout(
      () =>
        this.subs.get(reply)?.(null, {
          headers: { code: 404, description: 'No Messages' },
          data: new Uint8Array(0),
        }),
      5,
    );
  }

  wake(subject: string): void {
    this.subs.get(subject)?.(null, { data: new Uint8Array(0) });
  }
}

describe('ConsumerRunner waits', () => {
  it('keeps a wake that comes during the pull after a wait its timer ended, and pulls again at once', async () => {
    const IDLE_POLL_MS = 1000;
    const nats = new EmptyConsumer();
    const runner = new ConsumerRunner(nats as unknown as NatsConnection, {} as JetStreamClient, {
      sources: [{ stream: 'S', consumer: 'c', maxDeliver: 1 }],
      handler: async () => undefined,
      deadLetterSubject: () => 'dlq',
      wakeSubjects: ['wake'],
      idlePollMs: IDLE_POLL_MS,
    });
    // The first pull finds nothing, and the wait after it ends by its timer; the second pull
    // is under way when a publication wakes the runner. That wake is for the wait that follows.
    nats.onPull = (i) => {
      if (i === 1) nats.wake('wake');
    };
    runner.start();
    try {
      const third = () => nats.pulls.length >= 3;
      const deadline = Date.now() + 3 * IDLE_POLL_MS;
      while (!third() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(nats.pulls.length).toBeGreaterThanOrEqual(3);
      // Pulled again right after the empty pull, not one idle poll later.
      expect(nats.pulls[2] - nats.pulls[1]).toBeLessThan(IDLE_POLL_MS / 2);
    } finally {
      await runner.stop();
    }
  });
});

/** A consumer that always has messages: each pull is answered with as many as it asks for. */
class FullConsumer {
  private seq = 0;
  private readonly subs = new Map<string, Callback>();

  subscribe(subject: string, opts: { callback: Callback }) {
    this.subs.set(subject, opts.callback);
    return { unsubscribe: () => this.subs.delete(subject), isClosed: () => false };
  }

  publish(subject: string, data: string, opts?: { reply?: string }): void {
    if (!subject.startsWith('$JS.API.CONSUMER.MSG.NEXT.') || !opts?.reply) return;
    const reply = opts.reply;
    const { batch } = JSON.parse(data) as { batch: number };
    setTimeout(() => {
      for (let i = 0; i < batch; i++) {
        this.seq++;
        this.subs.get(reply)?.(null, {
          subject: 'work',
          reply: `$JS.ACK.S.c.1.${this.seq}.${this.seq}.${Date.now() * 1e6}.0`,
          data: new Uint8Array(0),
        });
      }
    }, 1);
  }
}

describe('ConsumerRunner in-hand allowance', () => {
  const handled = async (stepAside: boolean): Promise<number> => {
    const nats = new FullConsumer();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let count = 0;
    const runner = new ConsumerRunner(nats as unknown as NatsConnection, {} as JetStreamClient, {
      sources: [{ stream: 'S', consumer: 'c', maxDeliver: 10 }],
      handler: async (m) => {
        count++;
        if (stepAside) m.stepAside();
        await held;
        return { action: 'dead', reason: 'spec' };
      },
      deadLetterSubject: () => 'dlq',
      inHandPerSource: 4,
      idlePollMs: 20,
    });
    // Settling is not part of this spec: every message is left unsettled when the runner stops.
    (runner as unknown as { apply: () => Promise<void> }).apply = () => Promise.resolve();
    runner.start();
    await new Promise((r) => setTimeout(r, 150));
    release();
    await runner.stop();
    return count;
  };

  it('a message that waits in hand holds its place; one stepped aside (waiting for its turn) lets the runner pull the next', async () => {
    expect(await handled(false)).toBe(4);
    expect(await handled(true)).toBeGreaterThan(8);
  });
});

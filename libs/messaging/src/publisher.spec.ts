import type { JetStreamClient, PubAck } from '@nats-io/jetstream';
import { PublishDeadlineError, publishDurableWithin, PUBLISH_DEADLINE_MS } from './publisher';

/** A JetStream client whose publishes answer as `answer` says, recording each call's options. */
function fakeJs(answer: (call: number) => Promise<PubAck>) {
  const calls: { msgID?: string; timeout?: number }[] = [];
  const js = {
    publish: (_subject: string, _data: Uint8Array, opts: { msgID?: string; timeout?: number }) => {
      calls.push(opts);
      return answer(calls.length);
    },
  } as unknown as JetStreamClient;
  return { js, calls };
}

const ack = (duplicate = false) => ({ stream: 'S', seq: 7, duplicate }) as PubAck;

describe('publishDurableWithin', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('tries again with the same message id while the broker does not answer, then resolves', async () => {
    const { js, calls } = fakeJs((n) => (n < 3 ? Promise.reject(new Error('TIMEOUT')) : Promise.resolve(ack(true))));
    const result = publishDurableWithin(js, 'subj', { a: 1 }, 'msg-1');
    await jest.advanceTimersByTimeAsync(1000);
    await expect(result).resolves.toEqual({ stream: 'S', seq: 7, duplicate: true });
    expect(calls.map((c) => c.msgID)).toEqual(['msg-1', 'msg-1', 'msg-1']);
    // Each attempt waits only for what is left of the one deadline.
    expect(calls[0].timeout).toBe(PUBLISH_DEADLINE_MS);
    expect(calls[2].timeout).toBeLessThan(PUBLISH_DEADLINE_MS - 300 + 1);
  });

  it('rejects at the deadline even when a publish never settles', async () => {
    const { js } = fakeJs(() => new Promise<PubAck>(() => undefined));
    const result = publishDurableWithin(js, 'subj', {}, 'msg-2', { deadlineMs: 3000 });
    const settled = jest.fn();
    result.catch(settled);
    await jest.advanceTimersByTimeAsync(2999);
    expect(settled).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    await expect(result).rejects.toBeInstanceOf(PublishDeadlineError);
  });

  it('gives up without a last attempt that could not be answered before the deadline', async () => {
    const { js, calls } = fakeJs(() => Promise.reject(new Error('no responders')));
    const result = publishDurableWithin(js, 'subj', {}, 'msg-3', { deadlineMs: 1000 });
    result.catch(() => undefined);
    await jest.advanceTimersByTimeAsync(1000);
    await expect(result).rejects.toThrow(/no responders/);
    // Pauses of 100, 200, 300 ms: a fourth pause of 400 ms would leave no time for an answer.
    expect(calls).toHaveLength(4);
  });
});

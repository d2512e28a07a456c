import { ChannelConnector, SendResult } from '@app/channels';
import { EventEnvelope, OutboundMessage } from '@app/contracts';
import { DeliveryState, DeliveryStateConflictError, DeliveryStateEntry, Settlement } from '@app/messaging';
import { ChannelDispatch, DeliveryItem, DeliveryStates, PACING_DEFERRALS } from './channel-dispatch';
import { outbound } from '../../test/support/dispatch-kit';
import { SendPacer } from './send-pacer';

/** The delivery-state bucket in memory, with revisions and compare-and-set like the real one. */
class MemoryStates implements DeliveryStates {
  readonly entries = new Map<string, DeliveryStateEntry>();
  readonly writes: [string, DeliveryState][] = [];
  private rev = 0;

  read(id: string): Promise<DeliveryStateEntry> {
    return Promise.resolve(this.entries.get(id) ?? { state: null, revision: 0 });
  }
  claim(id: string, revision: number, state: DeliveryState): Promise<number> {
    if ((this.entries.get(id)?.revision ?? 0) !== revision) return Promise.reject(new DeliveryStateConflictError(id));
    return this.write(id, state);
  }
  write(id: string, state: DeliveryState): Promise<number> {
    this.writes.push([id, state]);
    this.entries.set(id, { state, revision: ++this.rev });
    return Promise.resolve(this.rev);
  }
}

const MARKETING = 'OUTBOUND_MARKETING';

/** A work item as the intake publishes it (the integration suites' builder; nothing connects here). */
function message(
  o: Partial<Omit<OutboundMessage, 'sender'>> & { sender?: { connection_id: string } } = {},
): OutboundMessage {
  return outbound({ ...o, sender: o.sender?.connection_id ?? 's1' });
}

function item(msg: unknown, deliveryCount = 1, stream = 'OUTBOUND_SERVICE'): DeliveryItem {
  return {
    meta: { stream, consumer: 'c', deliveryCount, streamSeq: 1, storedAt: 0, pending: 0 },
    json: <T>() => (typeof msg === 'string' ? JSON.parse(msg) : msg) as T,
  };
}

function setup(
  answers: SendResult[] = [{ ok: true, provider_message_id: 'wamid.1' }],
  o: { maxDeliver?: number; pacing?: ChannelConnector['pacing'] } = {},
) {
  let time = 1_000_000;
  const clock = {
    now: () => time,
    // Time jumps to the end of every wait: the specs never sleep.
    sleepUntil: (at: number) => {
      time = Math.max(time, at);
      return Promise.resolve();
    },
  };
  const sent: OutboundMessage[] = [];
  const connector: ChannelConnector = {
    channel: 'whatsapp',
    pacing: o.pacing ?? { ratePerSender: 100_000, burst: 100_000, recipientIntervalMs: 0 },
    sendTimeoutMs: 5000,
    send: (m) => {
      sent.push(m);
      return Promise.resolve(answers.length > 1 ? (answers.shift() as SendResult) : answers[0]);
    },
  };
  const pacer = new SendPacer(connector.pacing, clock.now);
  const paused: string[] = [];
  const pause = pacer.pause.bind(pacer);
  pacer.pause = (sender, until) => {
    paused.push(sender);
    return pause(sender, until);
  };
  const events: EventEnvelope[] = [];
  const store = new MemoryStates();
  const delivery = new ChannelDispatch({
    channel: 'whatsapp',
    connector,
    pacer,
    store,
    publish: (e) => {
      events.push(e);
      return Promise.resolve();
    },
    clock,
    options: { backoff: { baseMs: 1000, maxMs: 60_000 }, uncertainGraceMs: 2000, failureThreshold: 3 },
    marketingStream: MARKETING,
    maxDeliver: () => o.maxDeliver ?? 10,
    signal: new AbortController().signal,
  });
  return { delivery, store, events, sent, paused, pacer, clock };
}

const failure = (f: Partial<Extract<SendResult, { ok: false }>>): SendResult => ({
  ok: false,
  retryable: true,
  scope: 'channel',
  code: 'x',
  title: 'refused',
  ...f,
});

describe('ChannelDispatch decisions', () => {
  it('accepted: records sent, publishes message.sent and acks', async () => {
    const k = setup();
    const m = message();
    expect(await k.delivery.deliver(item(m))).toEqual({ action: 'ack' });
    expect(k.store.entries.get(m.id)?.state).toEqual({ status: 'sent', providerMessageId: 'wamid.1' });
    expect(k.events.map((e) => e.type)).toEqual(['message.sent']);
  });

  it('a final refusal: records failed, publishes message.failed with the channel code, acks', async () => {
    const k = setup([failure({ retryable: false, scope: 'message', code: '131026', title: 'undeliverable' })]);
    const m = message();
    expect(await k.delivery.deliver(item(m))).toEqual({ action: 'ack' });
    expect(k.store.entries.get(m.id)?.state).toEqual({ status: 'failed', code: '131026', title: 'undeliverable' });
    expect(k.events[0]).toMatchObject({ type: 'message.failed', data: { error: { code: '131026' } } });
  });

  it('withdrawn by the api before its first delivery: acked without calling the channel or publishing', async () => {
    const k = setup();
    const m = message();
    await k.store.write(m.id, { status: 'withdrawn', code: 'no_receipt' });
    expect(await k.delivery.deliver(item(m))).toEqual({ action: 'ack' });
    expect(k.sent).toEqual([]);
    expect(k.events).toEqual([]);
  });

  it('withdrawn after a transient refusal: the redelivery acks it unsent', async () => {
    const k = setup([failure({ scope: 'recipient', code: '131056' }), { ok: true, provider_message_id: 'wamid.2' }]);
    const m = message();
    expect(await k.delivery.deliver(item(m))).toMatchObject({ action: 'retry' });
    const { revision } = await k.store.read(m.id);
    await k.store.claim(m.id, revision, { status: 'withdrawn', code: 'no_receipt' });
    expect(await k.delivery.deliver(item(m, 2))).toEqual({ action: 'ack' });
    expect(k.sent).toHaveLength(1);
    expect(k.events).toEqual([]);
  });

  it('a recipient limit: only this message waits; neither the sender nor the channel slows', async () => {
    const k = setup([failure({ scope: 'recipient', code: '131056', retryAfterMs: 6000 })]);
    const got = await k.delivery.deliver(item(message()));
    expect(got).toMatchObject({ action: 'retry', delayMs: 6000 });
    expect(k.paused).toEqual([]);
    expect(k.delivery.channelBackedOffUntil).toBe(0);
    expect(k.events).toEqual([]);
  });

  it('a sender limit: pauses that sender only, for the wait the channel asked', async () => {
    const k = setup([failure({ scope: 'sender', code: '130429', retryAfterMs: 3000 })]);
    const got = await k.delivery.deliver(item(message({ sender: { connection_id: 'busy' } })));
    expect(got).toMatchObject({ action: 'retry', delayMs: 3000 });
    expect(k.paused).toEqual(['busy']);
    expect(Object.keys(k.pacer.pausedSenders())).toEqual(['busy']);
    expect(k.delivery.channelBackedOffUntil).toBe(0);
  });

  it('channel failures: the whole channel backs off once they reach the threshold, and a success clears it', async () => {
    const k = setup([failure({ scope: 'channel', code: 'http_503' })]);
    for (let i = 0; i < 2; i++) await k.delivery.deliver(item(message()));
    expect(k.delivery.channelBackedOffUntil).toBe(0);
    await k.delivery.deliver(item(message()));
    expect(k.delivery.channelBackedOffUntil).toBeGreaterThan(k.clock.now());
    expect(k.paused).toEqual([]);
  });

  it('a refusal with nothing sent records rejected; an unknown outcome leaves sending for the retry to resolve', async () => {
    const k = setup([
      failure({ code: 'network_error', outcomeUnknown: false }),
      failure({ code: 'timeout', outcomeUnknown: true }),
    ]);
    const a = message();
    const b = message();
    await k.delivery.deliver(item(a));
    await k.delivery.deliver(item(b));
    expect(k.store.entries.get(a.id)?.state).toEqual({ status: 'rejected', code: 'network_error' });
    expect(k.store.entries.get(b.id)?.state).toMatchObject({ status: 'sending' });
  });

  it('the last allowed delivery of a retryable refusal fails the message and dead-letters it', async () => {
    const k = setup([failure({ code: 'http_500' })], { maxDeliver: 3 });
    const m = message();
    const got = await k.delivery.deliver(item(m, 3));
    expect(got).toMatchObject({ action: 'dead' });
    expect(k.events[0]).toMatchObject({ type: 'message.failed', data: { error: { code: 'dead_lettered' } } });
    expect((k.events[0].data as { error: { title: string } }).error.title).toContain('http_500');
    expect(k.store.entries.get(m.id)?.state).toMatchObject({ status: 'failed', code: 'dead_lettered' });
  });

  describe('crash-safe resume', () => {
    it('already sent: not sent again, message.sent republished (same event id), acked', async () => {
      const k = setup();
      const m = message();
      await k.store.write(m.id, { status: 'sent', providerMessageId: 'wamid.before' });
      expect(await k.delivery.deliver(item(m, 2))).toEqual({ action: 'ack' });
      expect(k.sent).toEqual([]);
      expect(k.events[0]).toMatchObject({ type: 'message.sent', data: { provider_message_id: 'wamid.before' } });
    });

    it('interrupted mid-call, then a provider callback names it: counted as sent without a second call', async () => {
      const k = setup();
      const m = message();
      await k.store.write(m.id, { status: 'sending', since: k.clock.now() });
      // The gateway records the callback while the worker waits out the interrupted call.
      const sleep = k.clock.sleepUntil;
      k.clock.sleepUntil = (at: number) => {
        void k.store.write(m.id, { status: 'observed', providerMessageId: 'wamid.cb' });
        return sleep(at);
      };
      const settled: Settlement = await k.delivery.deliver(item(m, 2));
      expect(settled).toEqual({ action: 'ack' });
      expect(k.sent).toEqual([]);
      expect(k.events[0]).toMatchObject({ type: 'message.sent', data: { provider_message_id: 'wamid.cb' } });
    });

    it('interrupted mid-call and no callback within the timeout plus grace: sent again', async () => {
      const k = setup();
      const m = message();
      const since = k.clock.now();
      await k.store.write(m.id, { status: 'sending', since });
      await k.delivery.deliver(item(m, 2));
      expect(k.sent).toHaveLength(1);
      expect(k.clock.now()).toBeGreaterThanOrEqual(since + 5000 + 2000);
    });

    it('taken up again long after the interrupted call (NATS was down): the callback still gets the grace', async () => {
      const k = setup();
      const m = message();
      await k.store.write(m.id, { status: 'sending', since: k.clock.now() - 60_000 });
      const sleep = k.clock.sleepUntil;
      let waits = 0;
      k.clock.sleepUntil = (at: number) => {
        // The channel's retried callback lands a moment after the worker took the message up again.
        if (++waits === 2) void k.store.write(m.id, { status: 'observed', providerMessageId: 'wamid.late' });
        return sleep(at);
      };
      expect(await k.delivery.deliver(item(m, 2))).toEqual({ action: 'ack' });
      expect(k.sent).toEqual([]);

      const alone = setup();
      const n = message();
      await alone.store.write(n.id, { status: 'sending', since: alone.clock.now() - 60_000 });
      const taken = alone.clock.now();
      await alone.delivery.deliver(item(n, 2));
      expect(alone.sent).toHaveLength(1);
      expect(alone.clock.now()).toBeGreaterThanOrEqual(taken + 2000);
    });

    it('another copy in hand claims it anew while this one waits: the wait starts again from that call, never sent twice', async () => {
      const k = setup();
      const m = message();
      await k.store.write(m.id, { status: 'sending', since: k.clock.now() - 60_000 });
      const sleep = k.clock.sleepUntil;
      let waits = 0;
      let newerCall = 0;
      k.clock.sleepUntil = (at: number) => {
        // A redelivered copy claims it (its call under way, slow); its answer is recorded 6 s later.
        if (++waits === 2) {
          newerCall = k.clock.now();
          void k.store.write(m.id, { status: 'sending', since: newerCall });
        }
        if (newerCall && k.clock.now() >= newerCall + 6000)
          void k.store.write(m.id, { status: 'sent', providerMessageId: 'wamid.other' });
        return sleep(at);
      };
      expect(await k.delivery.deliver(item(m, 3))).toEqual({ action: 'ack' });
      expect(k.sent).toEqual([]);
      expect(k.events[0]).toMatchObject({ type: 'message.sent', data: { provider_message_id: 'wamid.other' } });
    });

    it('a first delivery skips the read, yet a state already there still stops a second send', async () => {
      const k = setup();
      const m = message();
      await k.store.write(m.id, { status: 'sent', providerMessageId: 'wamid.before' });
      expect(await k.delivery.deliver(item(m, 1))).toEqual({ action: 'ack' });
      expect(k.sent).toEqual([]);
    });

    it('failed before: message.failed republished, not sent again', async () => {
      const k = setup();
      const m = message();
      await k.store.write(m.id, { status: 'failed', code: '131047', title: 'window' });
      expect(await k.delivery.deliver(item(m, 2))).toEqual({ action: 'ack' });
      expect(k.sent).toEqual([]);
      expect(k.events[0]).toMatchObject({ type: 'message.failed', data: { error: { code: '131047' } } });
    });

    it('another worker claimed it meanwhile: retried later, not sent twice', async () => {
      const k = setup();
      const m = message();
      const claim = k.store.claim.bind(k.store);
      k.store.claim = (id, rev, state) => {
        void k.store.write(id, { status: 'sending', since: k.clock.now() });
        return claim(id, rev, state);
      };
      expect(await k.delivery.deliver(item(m))).toMatchObject({ action: 'retry' });
      expect(k.sent).toEqual([]);
    });
  });

  it('an unreadable work item is dead-lettered, with message.failed when it has an id', async () => {
    const k = setup();
    expect(await k.delivery.deliver(item('not json{'))).toMatchObject({ action: 'dead' });
    expect(await k.delivery.deliver(item(message({ recipient: '' })))).toMatchObject({ action: 'dead' });
    expect(k.events.map((e) => e.data)).toEqual([
      expect.objectContaining({
        error: expect.objectContaining({ code: 'dead_lettered', title: 'invalid outbound message: no recipient' }),
      }),
    ]);
    expect(k.sent).toEqual([]);
  });

  it("a sender over its cap: its message goes back to the stream until its turn (not read, not claimed, never on the last delivery nor after PACING_DEFERRALS), and another sender's goes at once", async () => {
    // 10/s: a sender and lane holds 7 messages in hand.
    const k = setup(undefined, { pacing: { ratePerSender: 10, burst: 1, recipientIntervalMs: 0 } });
    for (let i = 0; i < 7; i++) await k.pacer.admit('busy', 'service', { mayDefer: true, firstDelivery: true });
    const busy = message({ sender: { connection_id: 'busy' } });
    const outcome = await k.delivery.deliver(item(busy));
    expect(outcome).toMatchObject({ action: 'retry', unconfirmed: true, delayMs: 300 });
    expect(k.store.writes).toEqual([]);
    expect(k.sent).toEqual([]);
    // The last allowed delivery, or one past the deliveries allowed for waiting, is sent instead.
    expect(await k.delivery.deliver(item(busy, 10))).toEqual({ action: 'ack' });
    const late = message({ sender: { connection_id: 'busy' } });
    expect(await k.delivery.deliver(item(late, PACING_DEFERRALS + 1))).toEqual({ action: 'ack' });
    expect(k.sent.map((m) => m.id)).toEqual([busy.id, late.id]);
    const idle = message({ sender: { connection_id: 'idle' } });
    expect(await k.delivery.deliver(item(idle))).toEqual({ action: 'ack' });
  });
});

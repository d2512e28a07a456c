import { JetStreamClient } from '@nats-io/jetstream';
import { Topology } from '@app/contracts';
import {
  ConsumerRunner,
  NatsClients,
  publishDurable,
  PulledMessage,
  pullNoWait,
  settle,
  Settlement,
} from '@app/messaging';
import { killHard, sleep, spawnTs, startTestInfra, TestInfra, waitFor, waitForLine } from '@app/testing';

const OUTBOUND_MAX_DELIVER = 3;

describe('durable NATS backbone', () => {
  let infra: TestInfra;
  let clients: NatsClients;
  let js: JetStreamClient;
  let t: Topology;
  const runners: ConsumerRunner[] = [];

  beforeAll(async () => {
    infra = await startTestInfra({
      suite: 'backbone',
      database: false,
      topology: { ackWaitMs: 1500, outboundMaxDeliver: OUTBOUND_MAX_DELIVER, duplicateWindowMs: 60_000 },
    });
    clients = await NatsClients.connect({ url: infra.natsUrl, name: 'backbone-test' });
    js = clients.js;
    t = infra.topology;
  });

  afterEach(async () => {
    await Promise.all(runners.splice(0).map((r) => r.stop()));
  });

  afterAll(async () => {
    await clients?.drain();
    await infra?.stop();
  });

  function runner(
    channel: 'whatsapp' | 'telegram' | 'max' | 'course',
    handler: (m: PulledMessage) => Promise<Settlement | void>,
  ) {
    const r = new ConsumerRunner(clients.nc, js, {
      sources: (['service', 'marketing'] as const).map((p) => ({
        stream: t.outboundStream(p),
        consumer: t.outboundConsumer(p, channel),
        maxDeliver: OUTBOUND_MAX_DELIVER,
      })),
      handler,
      deadLetterSubject: (s) => t.deadLetterSubject(s.stream, s.consumer),
      backoff: { baseMs: 200, maxMs: 1000 },
      wakeSubjects: [t.outboundWildcard(channel)],
    });
    runners.push(r);
    return r;
  }

  async function deadLetters(): Promise<{ subject: string; reason: string; body: unknown }[]> {
    const jsm = await clients.jsm();
    const info = await jsm.streams.info(t.stream('deadLetter'));
    const out = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
      const m = await jsm.streams.getMessage(t.stream('deadLetter'), { seq });
      if (m) out.push({ subject: m.subject, reason: m.header.get('Dlq-Reason'), body: m.json() });
    }
    return out;
  }

  it('delivers a published message to its consumer exactly once when acked', async () => {
    const seen: string[] = [];
    runner('whatsapp', async (m) => {
      seen.push(m.json<{ id: string }>().id);
    }).start();
    await publishDurable(js, t.outboundSubject('service', 'whatsapp'), { id: 'm-1' }, 'm-1');
    await waitFor(() => seen.length === 1, 5000, 'delivery');
    await sleep(2000); // past ack_wait: an acked message must not come back
    expect(seen).toEqual(['m-1']);
  });

  it('redelivers after nak(delay) no sooner than the delay, then dead-letters after the last delivery', async () => {
    const deliveries: { at: number; count: number }[] = [];
    runner('telegram', async (m) => {
      deliveries.push({ at: Date.now(), count: m.meta.deliveryCount });
      return settle.retry('provider said 503', 700);
    }).start();
    await publishDurable(js, t.outboundSubject('service', 'telegram'), { id: 'm-2' }, 'm-2');
    await waitFor(
      async () => (await deadLetters()).some((d) => (d.body as { id: string }).id === 'm-2'),
      10_000,
      'dead letter',
    );
    expect(deliveries.map((d) => d.count)).toEqual([1, 2, 3]);
    for (let i = 1; i < deliveries.length; i++) {
      expect(deliveries[i].at - deliveries[i - 1].at).toBeGreaterThanOrEqual(650);
    }
    const dl = (await deadLetters()).find((d) => (d.body as { id: string }).id === 'm-2');
    expect(dl?.subject).toBe(
      t.deadLetterSubject(t.outboundStream('service'), t.outboundConsumer('service', 'telegram')),
    );
    expect(dl?.reason).toContain('provider said 503');
    await sleep(2500); // termed: never delivered again
    expect(deliveries).toHaveLength(3);
  });

  it('stores a publish repeated with the same id once', async () => {
    const subject = t.outboundSubject('marketing', 'max');
    const first = await publishDurable(js, subject, { id: 'dup' }, 'dup-1');
    const second = await publishDurable(js, subject, { id: 'dup' }, 'dup-1');
    expect(first.duplicate).toBe(false);
    expect(second.duplicate).toBe(true);
    expect(second.seq).toBe(first.seq);
    const taken = await pullNoWait(
      clients.nc,
      t.outboundStream('marketing'),
      t.outboundConsumer('marketing', 'max'),
      10,
    );
    expect(taken).toHaveLength(1);
    await Promise.all(taken.map((m) => m.ack()));
  });

  it('handles a service message published after 1,000 waiting marketing messages first', async () => {
    const marketing = t.outboundSubject('marketing', 'course');
    await Promise.all(
      Array.from({ length: 1000 }, (_, i) => publishDurable(js, marketing, { id: `mk-${i}` }, `mk-${i}`)),
    );
    await publishDurable(js, t.outboundSubject('service', 'course'), { id: 'svc' }, 'svc');
    const order: string[] = [];
    runner('course', async (m) => {
      order.push(m.json<{ id: string }>().id);
    }).start();
    await waitFor(() => order.length === 1001, 30_000, 'all 1001 handled');
    expect(order[0]).toBe('svc');
  });

  it.each([
    ['one batch at a time', undefined],
    ['continuously', 20],
  ])(
    'takes a message whose wake came before its stream stored it without waiting for the idle poll (%s)',
    async (_mode, inHandPerSource) => {
      const tag = inHandPerSource ? 'continuous' : 'batch';
      // The wake comes first and the message is stored 50 ms later, as when a publication reaches
      // the wake subscription before its stream has stored it. The idle poll is a minute away.
      const wakeSubject = `${t.outboundWildcard('max').replace(/\.>$/, '')}-wake-${tag}`;
      const got: string[] = [];
      const r = new ConsumerRunner(clients.nc, js, {
        sources: (['service', 'marketing'] as const).map((p) => ({
          stream: t.outboundStream(p),
          consumer: t.outboundConsumer(p, 'max'),
          maxDeliver: OUTBOUND_MAX_DELIVER,
        })),
        handler: async (m) => {
          got.push(m.json<{ id: string }>().id);
        },
        deadLetterSubject: (s) => t.deadLetterSubject(s.stream, s.consumer),
        wakeSubjects: [wakeSubject],
        idlePollMs: 60_000,
        inHandPerSource,
      });
      runners.push(r);
      r.start();
      await sleep(200); // the first look found nothing: the runner waits for a wake
      const id = `late-${tag}`;
      clients.nc.publish(wakeSubject, '');
      await sleep(50);
      await publishDurable(js, t.outboundSubject('service', 'max'), { id }, id);
      await waitFor(() => got.includes(id), 10_000, 'the late-stored message handled');
    },
  );

  it('redelivers a message whose consumer process was killed before acking', async () => {
    const subject = t.outboundSubject('service', 'whatsapp');
    await publishDurable(js, subject, { id: 'crash-1' }, 'crash-1');
    const child = spawnTs('libs/messaging/test/fixtures/take-and-hang.ts', {
      NATS_URL: infra.natsUrl,
      STREAM: t.outboundStream('service'),
      CONSUMER: t.outboundConsumer('service', 'whatsapp'),
    });
    const line = await waitForLine(child, /^taken /);
    expect(line).toBe('taken crash-1');
    await killHard(child);
    const seen: { id: string; count: number }[] = [];
    runner('whatsapp', async (m) => {
      seen.push({ id: m.json<{ id: string }>().id, count: m.meta.deliveryCount });
    }).start();
    await waitFor(() => seen.length === 1, 10_000, 'redelivery');
    expect(seen[0]).toEqual({ id: 'crash-1', count: 2 });
  });
});

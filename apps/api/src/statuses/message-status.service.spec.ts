import { Clock } from '@app/server';
import { EventEnvelope, EventType } from '@app/contracts';
import { BillingService, CaptureRequest } from '../billing/billing.service';
import { EventHandlersRegistry } from '../events';
import { CallbackOwnership } from './callback-ownership';
import { FailoverService } from '../sending';
import { MessageEntity } from '../messages/message.entity';
import { MessageStatusService, UNMATCHED_RETRY_SECONDS } from './message-status.service';
import { MessagesRepository } from '../messages/messages.repository';

const NOW = 1_800_000_000;

function setup(
  message: Partial<MessageEntity> | null = {
    id: 'm1',
    status: 'QUEUED',
    channel: 'whatsapp',
    createdAt: new Date(NOW * 1000 - 5000),
  },
  owned = true,
) {
  const em = {};
  const messages = {
    findByIds: jest.fn(
      async (ids: string[]) => new Map(message && ids.includes(message.id!) ? [[message.id, message]] : []),
    ),
    findByProviderIds: jest.fn(async (ids: string[]) => new Map(message && ids.length ? [[ids[0], message]] : [])),
    transactionCommittedByLast: jest.fn(async (work: (e: unknown) => Promise<unknown>) => work(em)),
    lockAndRecord: jest.fn(async (_: unknown, steps: { messageId: string; status: string }[]) => ({
      current: new Map([['m1', 'QUEUED']]),
      recorded: new Set(steps.map((s) => `${s.messageId} ${s.status}`)),
    })),
    advanceMany: jest.fn().mockResolvedValue(new Set(['m1'])),
    advanceUncounted: jest.fn().mockResolvedValue([]),
  };
  const billing = {
    settle: jest.fn(async (_: unknown, ids: { capture: CaptureRequest[]; release: string[] }) => ({
      captured: new Map(
        ids.capture.map((c) => [
          c.messageId,
          { category: 'UTILITY', assumedCategory: 'UTILITY', pricingType: null, charged: 200n, uncharged: 0n },
        ]),
      ),
      released: new Set(ids.release),
    })),
  };
  const clock = { nowMs: () => NOW * 1000, nowSeconds: () => NOW };
  const ownership = { mayUpdateAll: jest.fn(async (pairs: unknown[]) => pairs.map(() => owned)) };
  const service = new MessageStatusService(
    messages as unknown as MessagesRepository,
    billing as unknown as BillingService,
    new EventHandlersRegistry(),
    ownership as unknown as CallbackOwnership,
    clock as Clock,
    { afterFailures: jest.fn(), afterCarried: jest.fn() } as unknown as FailoverService,
  );
  /** The steps applied and the holds settled, across every transaction. */
  const applied = () =>
    [...messages.advanceMany.mock.calls, ...messages.advanceUncounted.mock.calls].flatMap(
      ([, , steps]) => steps as Record<string, unknown>[],
    );
  const settled = () => {
    const calls = billing.settle.mock.calls.map(([, ids]) => ids);
    return {
      capture: calls.flatMap((c) => c.capture.map((r) => r.messageId)),
      release: calls.flatMap((c) => c.release),
    };
  };
  return { service, messages, billing, applied, settled };
}

const event = (type: EventType, data: Record<string, unknown>, createdAt = NOW): EventEnvelope => ({
  id: 'evt_1',
  type,
  created_at: createdAt,
  channel: 'whatsapp',
  app_id: 1,
  data: { timestamp: NOW - 5, ...data },
});

describe('MessageStatusService', () => {
  it('drops a callback from a connection that does not own the message: no status, no money', async () => {
    const s = setup({ id: 'm1', status: 'SENT' }, false);
    await s.service.apply(event('message.failed', { message_id: 'm1', connection_id: 'another-number' }));
    expect(s.applied()).toEqual([]);
    expect(s.settled()).toEqual({ capture: [], release: [] });
  });

  it('an id PostgreSQL cannot hold (a NUL byte) names no message: nothing is looked up or changed', async () => {
    const s = setup();
    await s.service.apply(event('message.delivered', { message_id: 'a\u0000b', provider_message_id: 'w\u0000' }));
    expect(s.messages.findByIds).toHaveBeenCalledWith([]);
    expect(s.messages.findByProviderIds).toHaveBeenCalledWith([]);
    expect(s.applied()).toEqual([]);
  });

  it('delivered and read capture the hold; sent and failed never capture', async () => {
    for (const type of ['message.delivered', 'message.read'] as const) {
      const s = setup();
      await s.service.apply(event(type, { message_id: 'm1' }));
      expect(s.settled()).toEqual({ capture: ['m1'], release: [] });
    }
    const sent = setup();
    await sent.service.apply(event('message.sent', { message_id: 'm1', provider_message_id: 'wamid.1' }));
    expect(sent.applied()).toEqual([
      expect.objectContaining({ messageId: 'm1', status: 'SENT', providerMessageId: 'wamid.1' }),
    ]);
    expect(sent.settled()).toEqual({ capture: [], release: [] });
  });

  it('the charge follows the pricing of the status that captures it; one without pricing leaves the assumed price', async () => {
    const pricing = {
      category: 'UTILITY',
      channel_category: 'utility',
      type: 'free_customer_service',
      billable: false,
      pricing_model: 'PMP',
    };
    const s = setup();
    await s.service.apply(event('message.delivered', { message_id: 'm1', pricing }));
    expect(s.billing.settle.mock.calls[0][1].capture).toEqual([{ messageId: 'm1', pricing }]);
    const bare = setup();
    await bare.service.apply(event('message.read', { message_id: 'm1' }));
    // A pricing not of the contract's shape is no pricing.
    const odd = setup();
    await odd.service.apply(event('message.delivered', { message_id: 'm1', pricing: { ...pricing, type: 'gift' } }));
    for (const x of [bare, odd])
      expect(x.billing.settle.mock.calls[0][1].capture).toEqual([{ messageId: 'm1', pricing: null }]);
  });

  it('on channels without receipts (Telegram, MAX) sent is final and captures the hold', async () => {
    for (const channel of ['telegram', 'max'] as const) {
      const s = setup({ id: 'm1', status: 'QUEUED', channel, createdAt: new Date(NOW * 1000 - 5000) });
      await s.service.apply(event('message.sent', { message_id: 'm1', provider_message_id: `${channel}:1:2` }));
      expect(s.applied()).toEqual([expect.objectContaining({ messageId: 'm1', status: 'SENT', failure: null })]);
      expect(s.settled()).toEqual({ capture: ['m1'], release: [] });
    }
  });

  it('a failure of any kind releases the hold and records its code and reason', async () => {
    for (const error of [
      { code: '131026', title: 'Message undeliverable' },
      { code: 'no_receipt', title: 'No final status' },
      { code: 'queue_unavailable', title: 'publish failed' },
    ]) {
      const s = setup();
      await s.service.apply(event('message.failed', { message_id: 'm1', error }));
      expect(s.applied()).toEqual([
        expect.objectContaining({
          messageId: 'm1',
          status: 'FAILED',
          failure: { code: error.code, reason: error.title },
        }),
      ]);
      expect(s.settled()).toEqual({ capture: [], release: ['m1'] });
    }
  });

  it('records the step at the channel timestamp, in the one transaction that moves the status', async () => {
    const s = setup();
    await s.service.apply(event('message.delivered', { message_id: 'm1' }));
    expect(s.messages.transactionCommittedByLast).toHaveBeenCalledTimes(1);
    expect(s.messages.lockAndRecord.mock.calls[0][1]).toEqual([
      expect.objectContaining({ messageId: 'm1', status: 'DELIVERED', occurredAt: NOW - 5 }),
    ]);
    expect(s.applied()).toEqual([expect.objectContaining({ messageId: 'm1', status: 'DELIVERED' })]);
  });

  it('events handled at the same time go in one transaction, in their order; the first settling one decides', async () => {
    const s = setup();
    await Promise.all([
      s.service.apply(event('message.sent', { message_id: 'm1', provider_message_id: 'wamid.1' })),
      s.service.apply(event('message.failed', { message_id: 'm1', error: { code: '131026', title: 'x' } })),
      s.service.apply(event('message.delivered', { message_id: 'm1' })),
    ]);
    expect(s.messages.transactionCommittedByLast).toHaveBeenCalledTimes(1);
    expect(s.applied().map((a) => a.status)).toEqual(['SENT', 'FAILED', 'DELIVERED']);
    expect(s.settled()).toEqual({ capture: [], release: ['m1'] });
  });

  it('an event the database refuses fails alone: the others of its group are applied', async () => {
    const s = setup();
    const m2 = { id: 'm2', status: 'QUEUED', channel: 'whatsapp', createdAt: new Date(NOW * 1000 - 5000) };
    s.messages.findByIds.mockImplementation(
      async (ids: string[]) => new Map(ids.map((id) => [id, id === 'm2' ? m2 : { ...m2, id }])) as never,
    );
    s.messages.lockAndRecord.mockImplementation(async (_: unknown, steps: { messageId: string; status: string }[]) => {
      if (steps.some((x) => x.messageId === 'm2')) throw new Error('invalid byte sequence');
      return {
        current: new Map([['m1', 'QUEUED']]),
        recorded: new Set(steps.map((x) => `${x.messageId} ${x.status}`)),
      };
    });
    const [ok, refused] = await Promise.allSettled([
      s.service.apply(event('message.delivered', { message_id: 'm1' })),
      s.service.apply(event('message.delivered', { message_id: 'm2' })),
    ]);
    expect(ok.status).toBe('fulfilled');
    expect(refused).toEqual({ status: 'rejected', reason: new Error('invalid byte sequence') });
    expect(s.applied()).toEqual([expect.objectContaining({ messageId: 'm1', status: 'DELIVERED' })]);
  });

  it('an event without data names no message and holds back none of its group', async () => {
    const s = setup();
    await Promise.all([
      s.service.apply({ ...event('message.delivered', {}), data: null as never }),
      s.service.apply(event('message.delivered', { message_id: 'm1' })),
    ]);
    expect(s.applied()).toEqual([expect.objectContaining({ messageId: 'm1', status: 'DELIVERED' })]);
  });

  it('a callback naming only an unknown channel id is retried while young, then dropped', async () => {
    const young = setup(null);
    await expect(young.service.apply(event('message.delivered', { provider_message_id: 'wamid.X' }))).rejects.toThrow(
      /will retry/,
    );
    const old = setup(null);
    await old.service.apply(
      event('message.delivered', { provider_message_id: 'wamid.X' }, NOW - UNMATCHED_RETRY_SECONDS),
    );
    expect(old.settled()).toEqual({ capture: [], release: [] });
    expect(old.applied()).toEqual([]);
  });
});

import { Clock } from '@app/server';
import { EventEnvelope, EventType } from '@app/contracts';
import { BillingService } from '../billing/billing.service';
import { EventHandlersRegistry } from '../events';
import { CallbackOwnership } from './callback-ownership';
import { MessageEntity } from './message.entity';
import { MessageStatusService, UNMATCHED_RETRY_SECONDS } from './message-status.service';
import { MessagesRepository } from './messages.repository';

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
  const messages = {
    findById: jest.fn().mockResolvedValue(message),
    findByProviderId: jest.fn().mockResolvedValue(message),
    setProviderId: jest.fn().mockResolvedValue(undefined),
    recordEvent: jest.fn().mockResolvedValue(true),
    advance: jest.fn().mockResolvedValue(true),
  };
  const billing = { capture: jest.fn().mockResolvedValue(true), release: jest.fn().mockResolvedValue(true) };
  const clock = { nowMs: () => NOW * 1000, nowSeconds: () => NOW };
  const ownership = { mayUpdate: jest.fn().mockResolvedValue(owned) };
  const service = new MessageStatusService(
    messages as unknown as MessagesRepository,
    billing as unknown as BillingService,
    new EventHandlersRegistry(),
    ownership as unknown as CallbackOwnership,
    clock as Clock,
  );
  return { service, messages, billing };
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
    const { service, messages, billing } = setup({ id: 'm1', status: 'SENT' }, false);
    await service.apply(event('message.failed', { message_id: 'm1', connection_id: 'another-number' }));
    expect(messages.advance).not.toHaveBeenCalled();
    expect(billing.release).not.toHaveBeenCalled();
  });

  it('an id PostgreSQL cannot hold (a NUL byte) names no message: nothing is looked up or changed', async () => {
    const { service, messages } = setup();
    await service.apply(event('message.delivered', { message_id: 'a\u0000b', provider_message_id: 'w\u0000' }));
    expect(messages.findById).not.toHaveBeenCalled();
    expect(messages.findByProviderId).not.toHaveBeenCalled();
    expect(messages.advance).not.toHaveBeenCalled();
  });

  it('delivered and read capture the hold; sent and failed never capture', async () => {
    for (const type of ['message.delivered', 'message.read'] as const) {
      const s = setup();
      await s.service.apply(event(type, { message_id: 'm1' }));
      expect(s.billing.capture).toHaveBeenCalledWith('m1');
      expect(s.billing.release).not.toHaveBeenCalled();
    }
    const sent = setup();
    await sent.service.apply(event('message.sent', { message_id: 'm1', provider_message_id: 'wamid.1' }));
    expect(sent.messages.setProviderId).toHaveBeenCalledWith('m1', 'wamid.1');
    expect(sent.billing.capture).not.toHaveBeenCalled();
    expect(sent.billing.release).not.toHaveBeenCalled();
  });

  it('on channels without receipts (Telegram, MAX) sent is final and captures the hold', async () => {
    for (const channel of ['telegram', 'max'] as const) {
      const s = setup({ id: 'm1', status: 'QUEUED', channel, createdAt: new Date(NOW * 1000 - 5000) });
      await s.service.apply(event('message.sent', { message_id: 'm1', provider_message_id: `${channel}:1:2` }));
      expect(s.messages.advance).toHaveBeenCalledWith('m1', 'SENT', null);
      expect(s.billing.capture).toHaveBeenCalledWith('m1');
      expect(s.billing.release).not.toHaveBeenCalled();
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
      expect(s.messages.advance).toHaveBeenCalledWith('m1', 'FAILED', { code: error.code, reason: error.title });
      expect(s.billing.release).toHaveBeenCalledWith('m1');
      expect(s.billing.capture).not.toHaveBeenCalled();
    }
  });

  it('records the step at the channel timestamp and asks only for a forward move', async () => {
    const s = setup();
    await s.service.apply(event('message.delivered', { message_id: 'm1' }));
    expect(s.messages.recordEvent).toHaveBeenCalledWith('m1', 'DELIVERED', NOW - 5);
    expect(s.messages.advance).toHaveBeenCalledWith('m1', 'DELIVERED', null);
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
    expect(old.billing.capture).not.toHaveBeenCalled();
    expect(old.messages.advance).not.toHaveBeenCalled();
  });
});

import { randomBytes } from 'node:crypto';
import { SecretBox } from '@app/auth';
import { EventEnvelope, messageStatusEventId, newMessageId, ReadTargetResult, Topology } from '@app/contracts';
import { EventPublisher, NatsClients, RpcClient } from '@app/messaging';
import { Clock } from '@app/server';
import { GatewayConfig } from '../config';
import { PixelOpensService } from './pixel-opens.service';
import { PixelTokens } from './pixel-token';

describe('PixelOpensService', () => {
  const tokens = new PixelTokens(SecretBox.fromSpec(`k1:${randomBytes(32).toString('base64')}`));
  const topology = new Topology('t');
  let publishOpen: jest.Mock;
  let publishEvent: jest.Mock;
  let target: ReadTargetResult;
  let service: PixelOpensService;

  beforeEach(() => {
    publishOpen = jest.fn().mockResolvedValue({ stream: 'T_INBOUND', seq: 1, duplicate: false });
    publishEvent = jest.fn().mockResolvedValue({ stream: 'T_EVENTS', seq: 1, duplicate: false });
    const config = Object.assign(new GatewayConfig(), { GATEWAY_PUBLIC_URL: 'https://gw.example/' });
    service = new PixelOpensService(
      config,
      tokens,
      { js: { publish: publishOpen } } as unknown as NatsClients,
      topology,
      { publish: publishEvent } as unknown as EventPublisher,
      { call: jest.fn(() => Promise.resolve(target)) } as unknown as RpcClient,
      new Clock(),
    );
  });

  it('hands out an absolute URL under the public base, with the message token', () => {
    const id = newMessageId();
    const url = service.urlOf(id);
    expect(url).toBe(`https://gw.example/v1/course/pixel/${tokens.seal(id)}.gif`);
  });

  it('stores an open of a genuine token under one id per message, on the pixel subject', () => {
    const id = newMessageId();
    service.opened(tokens.seal(id));
    expect(publishOpen).toHaveBeenCalledTimes(1);
    const [subject, , options] = publishOpen.mock.calls[0] as [string, Uint8Array, { msgID: string }];
    expect(subject).toBe('t.inbound.pixel');
    expect(options.msgID).toBe(`pixel:${id}`);
  });

  it('stores nothing for a forged or made-up token', () => {
    const raw = Buffer.from(tokens.seal(newMessageId()), 'base64url');
    raw[10] ^= 0x80;
    service.opened(raw.toString('base64url'));
    service.opened('made-up');
    expect(publishOpen).not.toHaveBeenCalled();
  });

  it('does not throw when the open cannot be stored (the GIF is answered anyway)', async () => {
    publishOpen.mockRejectedValue(new Error('no responders'));
    expect(() => service.opened(tokens.seal(newMessageId()))).not.toThrow();
    await new Promise((r) => setImmediate(r));
  });

  const message = (status: 'SENT' | 'DELIVERED' | 'READ' | 'FAILED'): ReadTargetResult => ({
    found: true,
    message_id: '01a2-msg',
    channel: 'telegram',
    status,
    app_id: 7,
    user_id: 'user-1',
    recipient: '1001',
    category: 'UTILITY',
  });

  it("records the first open as message.read stamped with the message's owner, under the one read id", async () => {
    target = message('SENT');
    await service.record({ message_id: '01a2-msg', opened_at: 1_800_000_000 });
    expect(publishEvent).toHaveBeenCalledTimes(1);
    const event = publishEvent.mock.calls[0][0] as EventEnvelope;
    expect(event).toMatchObject({
      id: messageStatusEventId('01a2-msg', 'READ'),
      type: 'message.read',
      channel: 'telegram',
      app_id: 7,
      user_id: 'user-1',
      data: { message_id: '01a2-msg', recipient: '1001', status: 'READ', timestamp: 1_800_000_000 },
    });
    expect(event.data).not.toHaveProperty('connection_id');
  });

  it.each(['READ', 'FAILED'] as const)('changes nothing for a message already %s', async (status) => {
    target = message(status);
    await service.record({ message_id: '01a2-msg', opened_at: 1_800_000_000 });
    expect(publishEvent).not.toHaveBeenCalled();
  });

  it('changes nothing for a message the api does not know', async () => {
    target = { found: false };
    await service.record({ message_id: '01a2-msg', opened_at: 1_800_000_000 });
    expect(publishEvent).not.toHaveBeenCalled();
  });
});

import { Topology } from '@app/contracts';
import { ProblemError, Clock } from '@app/server';
import { AppEntity } from '../wa-apps/app.entity';
import { WaAppsService } from '../wa-apps/wa-apps.service';
import { MessagePrices } from '../billing/message-prices';
import { ConsentService } from '../consent/consent.service';
import { ConversationsService } from '../conversations/conversations.service';
import { MessagesRepository } from '../messages/messages.repository';
import { MessagesService } from './messages.service';
import { Outbox } from '../outbox';
import { SendRecord, SendTransaction } from './send-transaction';
import { SendableTemplatesRepository } from './sendable-templates.repository';

const app = {
  id: 7,
  status: 'ACTIVE',
  isStopped: false,
  phoneNumberId: '1234',
  wabaId: '5678',
  messageLimit: 'TIER_50',
  isMmLiteSupported: false,
} as AppEntity;

function setup(
  opts: {
    publish?: () => Promise<void>;
    connected?: boolean;
    outcome?: unknown;
    app?: Partial<AppEntity>;
    category?: string;
  } = {},
) {
  const committed: SendRecord[] = [];
  const sends = {
    commit: jest.fn(async (send: SendRecord) => {
      committed.push(send);
      return opts.outcome ?? { accepted: true, currency: 'USD' };
    }),
  };
  const outbox = {
    publish: jest.fn(opts.publish ?? (async () => undefined)),
    connected: () => opts.connected ?? true,
  };
  const em = {};
  const messages = {
    transaction: jest.fn(async (work: (em: unknown) => Promise<unknown>) => work(em)),
    advance: jest.fn().mockResolvedValue(true),
    recordEvent: jest.fn().mockResolvedValue(true),
  };
  const templates = {
    findTemplates: jest.fn().mockResolvedValue([
      {
        id: 3,
        name: 'hello',
        language: 'en',
        category: opts.category ?? 'UTILITY',
        type: 'TEXT',
        status: 'APPROVED',
        header: null,
        body: { text: 'Hi' },
        footer: null,
        buttons: [],
      },
    ]),
  };
  const service = new MessagesService(
    { getOwnedApp: jest.fn().mockResolvedValue({ ...app, ...opts.app }) } as unknown as WaAppsService,
    messages as unknown as MessagesRepository,
    templates as unknown as SendableTemplatesRepository,
    sends as unknown as SendTransaction,
    outbox as unknown as Outbox,
    { priceOf: () => 0.02 } as unknown as MessagePrices,
    { isOpen: jest.fn().mockResolvedValue(false) } as unknown as ConversationsService,
    { check: jest.fn().mockResolvedValue(undefined) } as unknown as ConsentService,
    new Topology('t'),
    {
      nowMs: () => 1_800_000_000_000,
      nowSeconds: () => 1_800_000_000,
      now: () => new Date(1_800_000_000_000),
    } as Clock,
  );
  return { service, committed, outbox, messages };
}

const template = { phone: '447000000001', type: 'TEMPLATE', template: { name: 'hello' } } as never;

describe('MessagesService.send', () => {
  it('commits the send with its tier and outbox entry, then publishes that same entry', async () => {
    const s = setup();
    const answer = await s.service.send('u1', '7', template);
    expect(s.committed).toHaveLength(1);
    const [send] = s.committed;
    expect(answer).toEqual({ message: { id: send.message.id } });
    expect(send.tier).toEqual({ appId: 7, cap: 50, label: 'TIER_50' });
    expect(send.message).toMatchObject({ userId: 'u1', appId: 7, category: 'UTILITY', price: 0.02 });
    expect(send.outbox).toMatchObject({ id: send.message.id, subject: 't.outbound.service.whatsapp' });
    expect(s.outbox.publish).toHaveBeenCalledWith(send.outbox);
  });

  it('the exact cap the channel reported (TIER_1K) is the tier applied, not the label’s', async () => {
    const s = setup({ app: { messageLimit: 'TIER_2K', messageCap: 1000 } });
    await s.service.send('u1', '7', template);
    expect(s.committed[0].tier).toEqual({ appId: 7, cap: 1000, label: 'TIER_2K' });
  });

  it('a marketing send of a RED or restricted app is 403 marketing-paused, before anything is held', async () => {
    for (const paused of [
      { phoneQuality: 'RED' as const },
      { restricted: true, restrictedUntil: new Date(1_800_000_060_000) },
    ]) {
      const s = setup({ category: 'MARKETING', app: paused });
      await expect(s.service.send('u1', '7', template)).rejects.toMatchObject({
        status: 403,
        slug: 'marketing-paused',
      });
      expect(s.committed).toEqual([]);
    }
    // A restriction that has ended pauses nothing; other categories are never paused.
    const ended = setup({
      category: 'MARKETING',
      app: { restricted: true, restrictedUntil: new Date(1_799_999_000_000) },
    });
    await ended.service.send('u1', '7', template);
    expect(ended.committed).toHaveLength(1);
    const utility = setup({ app: { phoneQuality: 'RED' } });
    await utility.service.send('u1', '7', template);
    expect(utility.committed).toHaveLength(1);
  });

  it('a refused send (tier, balance) is answered with its problem and never published', async () => {
    const problem = new ProblemError(422, 'insufficient-balance', 'Insufficient balance');
    const s = setup({ outcome: { accepted: false, problem } });
    await expect(s.service.send('u1', '7', template)).rejects.toBe(problem);
    expect(s.outbox.publish).not.toHaveBeenCalled();
  });

  it('a publish the stream does not confirm: the send stands, 201 with its message, nothing withdrawn', async () => {
    const s = setup({ publish: () => Promise.reject(new Error('timeout')) });
    const answer = await s.service.send('u1', '7', template);
    expect(answer.message.id).toBe(s.committed[0].message.id);
    expect(s.messages.advance).not.toHaveBeenCalled();
    expect(s.messages.transaction).not.toHaveBeenCalled();
  });

  it('while the broker connection is down, 503 with Retry-After at once: nothing committed, held or published', async () => {
    const s = setup({ connected: false });
    await expect(s.service.send('u1', '7', template)).rejects.toMatchObject({
      status: 503,
      headers: { 'Retry-After': '2' },
    });
    expect(s.committed).toEqual([]);
    expect(s.outbox.publish).not.toHaveBeenCalled();
  });
});

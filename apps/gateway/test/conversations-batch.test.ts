import { randomUUID } from 'node:crypto';
import { EventEnvelope, EventType } from '@app/contracts';
import { NatsClients, publishDurable } from '@app/messaging';
import { createDataSource } from '@app/database';
import { waitFor } from '@app/testing';
import { ApiFactory } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { AccountsRepository } from '../src/accounts/accounts.repository';
import { gatewaySchema } from '../src/database/schema';
import { eventsOf } from './support/whatsapp';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * The conversations recorder takes the events of a pull as one batch: many customers writing at
 * once, the same update coming again, and an outbound message's statuses arriving out of order all
 * end as each message stored once, in channel order, with the status that ranks highest.
 */
describe('conversations: recording a batch of events', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let clients: NatsClients;
  let token: string;
  let userId: string;
  let connectionId: string;

  const call = async (path: string, init: { body?: unknown } = {}) => {
    const res = await fetch(`${platform.urls.gateway}${path}`, {
      method: init.body === undefined ? 'GET' : 'POST',
      headers: {
        Authorization: `Bearer ${token}`,
        ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  /** An event as the gateway's channel callbacks publish it, on the EVENTS stream. */
  const publish = (type: EventType, data: Json, at: number) => {
    const event: EventEnvelope<Json> = {
      id: randomUUID(),
      type,
      created_at: at,
      channel: 'telegram',
      app_id: null,
      user_id: userId,
      data,
    };
    return publishDurable(clients.js, platform.infra.topology.eventSubject(type), event, event.id);
  };
  const conversationOf = (address: string) =>
    waitFor(
      async () => {
        const res = await call('/v1/conversations?channel=telegram&limit=100');
        return (res.body.data as Json[]).find((c) => c.contact.address === address) ?? false;
      },
      20_000,
      `the conversation with ${address}`,
      100,
    );

  beforeAll(async () => {
    platform = await startPlatform({ suite: 'gw-conversations-batch', services: ['api', 'gateway', 'sandbox'] });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    clients = await NatsClients.connect({ url: platform.infra.natsUrl, name: 'gw-conversations-batch-test' });
    const user = await factory.user('system', { balance: 10 });
    userId = user.userId;
    const db = createDataSource(platform.infra.databaseUrl, gatewaySchema, 1);
    await db.initialize();
    token = (await new AccountsRepository(db).createAccount('batch', user.userId)).token;
    await db.destroy();
    const bot = (await (
      await fetch(`${platform.urls.sandbox}/_sandbox/telegram/bots`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{}',
      })
    ).json()) as { token: string };
    const connection = await call('/v1/connections', { body: { channel: 'telegram', bot_token: bot.token } });
    expect(connection.status).toBe(201);
    connectionId = connection.body.id as string;
  });

  afterAll(async () => {
    await clients?.drain();
    await factory?.close();
    await platform?.stop();
  });

  it('stores each message once, in channel order, and keeps the highest status of out-of-order statuses', async () => {
    const base = Math.floor(Date.now() / 1000) - 600;
    const senders = ['8101', '8102', '8103', '8104'];
    const inbound = (from: string, n: number) =>
      publish(
        'message.received',
        {
          connection_id: connectionId,
          from,
          provider_message_id: `${from}:${n}`,
          type: 'text',
          text: `${from} says ${n}`,
          content: { type: 'text', text: `${from} says ${n}` },
          // Written in order 1, 2, 3; published 3, 1, 2.
          timestamp: base + n,
        },
        base + n,
      );
    // Every sender's messages, each also repeated, published at once: one pull, one batch.
    await Promise.all(senders.flatMap((from) => [3, 1, 2, 1, 3].map((n) => inbound(from, n))));

    for (const from of senders) {
      const c = await conversationOf(from);
      const page = await waitFor(
        async () => {
          const res = await call(`/v1/conversations/${c.id}/messages?limit=100`);
          return (res.body.data as Json[]).length >= 3 ? res.body : false;
        },
        20_000,
        `3 messages from ${from}`,
        100,
      );
      expect((page.data as Json[]).map((m) => m.content.text)).toEqual([1, 2, 3].map((n) => `${from} says ${n}`));
      const list = await conversationOf(from);
      expect(list.unread_count).toBe(3);
      // New senders of one batch became a contact each, holding their address.
      const contact = await call(`/v1/contacts/${list.contact.id}`);
      expect(contact.body.addresses).toEqual([{ channel: 'telegram', kind: 'chat_id', value: from }]);
      const all = await call('/v1/conversations?channel=telegram&limit=100');
      expect((all.body.data as Json[]).filter((x) => x.contact.address === from)).toHaveLength(1);
      expect(list.last_message.content.text).toBe(`${from} says 3`);
    }
    const created = await waitFor(
      async () => {
        const events = await eventsOf<Json>(clients, platform.infra.topology, 'conversation.message.created');
        return events.length >= senders.length * 3 ? events : false;
      },
      20_000,
      'conversation.message.created events',
      200,
    );
    const texts = created.map((e) => e.data.content.text as string);
    expect(texts).toHaveLength(senders.length * 3);
    expect(new Set(texts).size).toBe(texts.length);

    // An outbound message to a known sender: its statuses come read, sent, delivered, in one batch.
    const messageId = randomUUID();
    const status = (type: EventType, status: string, at: number) =>
      publish(
        type,
        { message_id: messageId, recipient: '8101', status, connection_id: connectionId, timestamp: at },
        at,
      );
    await Promise.all([
      status('message.read', 'READ', base + 30),
      status('message.sent', 'SENT', base + 10),
      status('message.delivered', 'DELIVERED', base + 20),
    ]);
    const c = await conversationOf('8101');
    const out = await waitFor(
      async () => {
        const res = await call(`/v1/conversations/${c.id}/messages?limit=100`);
        return (res.body.data as Json[]).find((m) => m.message_id === messageId) ?? false;
      },
      20_000,
      'the outbound message in its thread',
      100,
    );
    expect(out).toMatchObject({ direction: 'out', status: 'READ' });
    // A late status never moves it back: once a message published after them is in, they were handled.
    await status('message.sent', 'SENT', base + 40);
    await status('message.delivered', 'DELIVERED', base + 41);
    await inbound('8101', 4);
    const messages = await waitFor(
      async () => {
        const res = await call(`/v1/conversations/${c.id}/messages?limit=100`);
        const data = res.body.data as Json[];
        return data.some((m) => m.content.text === '8101 says 4') ? data : false;
      },
      20_000,
      'the message after the late statuses',
      100,
    );
    expect(messages.filter((m) => m.message_id === messageId)).toEqual([expect.objectContaining({ status: 'READ' })]);
  });

  it('announces a message stored by a process that died before publishing its event, when the update comes again', async () => {
    const c = await conversationOf('8102');
    const db = createDataSource(platform.infra.databaseUrl, gatewaySchema, 1);
    await db.initialize();
    try {
      // What the dead process left: the row, and no conversation.message.created.
      await db.query(
        `INSERT INTO conversation_messages (id, conversation_id, account_id, direction, provider_message_id, message_id,
                                            status, content, channel_timestamp)
         SELECT $1, id, account_id, 'in', '8102:9', NULL, 'RECEIVED', $2::jsonb, now() FROM conversations WHERE id = $3`,
        [randomUUID(), JSON.stringify({ type: 'text', text: 'stored, never announced' }), c.id],
      );
    } finally {
      await db.destroy();
    }
    const at = Math.floor(Date.now() / 1000);
    const update = {
      connection_id: connectionId,
      from: '8102',
      provider_message_id: '8102:9',
      type: 'text',
      text: 'stored, never announced',
      content: { type: 'text', text: 'stored, never announced' },
      timestamp: at,
    };
    await publish('message.received', update, at);
    const announced = await waitFor(
      async () => {
        const events = await eventsOf<Json>(clients, platform.infra.topology, 'conversation.message.created');
        const these = events.filter((e) => e.data.provider_message_id === '8102:9');
        return these.length ? these : false;
      },
      20_000,
      'the event of the stored message',
      200,
    );
    expect(announced).toHaveLength(1);
    expect(announced[0].data).toMatchObject({ conversation_id: c.id, direction: 'in' });
    // Stored once: the repeat added nothing to the thread.
    const res = await call(`/v1/conversations/${c.id}/messages?limit=100`);
    expect((res.body.data as Json[]).filter((m) => m.provider_message_id === '8102:9')).toHaveLength(1);
  });
});

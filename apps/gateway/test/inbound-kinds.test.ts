import { InboundContentType, MessageReceivedData } from '@app/contracts';
import { NatsClients } from '@app/messaging';
import { waitFor } from '@app/testing';
import { ApiFactory } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { sandboxControl } from '../../../test/support/sandbox';
import { createDataSource } from '@app/database';
import { DataSource } from 'typeorm';
import { AccountsRepository } from '../src/accounts/accounts.repository';
import { gatewaySchema } from '../src/database/schema';
import { eventsEventually, eventsOf } from './support/whatsapp';

type Json = Record<string, unknown>;

/**
 * Every inbound kind on every channel, emitted by the sandbox as the channel posts it, reaches
 * subscribers as one `message.received` with its typed content; a repeat is one event; WhatsApp's
 * three sender shapes (and a changed id) are named in `sender`.
 */
describe('inbound kinds through the gateway', () => {
  let platform: Platform;
  let clients: NatsClients;
  let api: ApiFactory;
  let gatewayDb: DataSource;
  let accounts: AccountsRepository;

  const sandbox = (path: string, body?: unknown) => sandboxControl<Json & Json[]>(platform.urls.sandbox, path, body);
  const received = (match: (d: MessageReceivedData) => boolean, count = 1) =>
    eventsEventually<MessageReceivedData>(clients, platform.infra.topology, 'message.received', match, { count });

  beforeAll(async () => {
    platform = await startPlatform({ suite: 'gw-inbound-kinds', services: ['sandbox', 'api', 'gateway'] });
    clients = await NatsClients.connect({ url: platform.infra.natsUrl, name: 'gw-inbound-kinds-test' });
    api = await ApiFactory.connect(platform.infra.databaseUrl);
    gatewayDb = createDataSource(platform.infra.databaseUrl, gatewaySchema, 2);
    await gatewayDb.initialize();
    accounts = new AccountsRepository(gatewayDb);
  });
  afterAll(async () => {
    await clients?.drain();
    await gatewayDb?.destroy();
    await api?.close();
    await platform?.stop();
  });

  describe('WhatsApp', () => {
    const number = '1000077';
    const inbound = async (body: Json) => {
      const res = await sandbox('whatsapp/inbound', { phone_number_id: number, from: '79990007711', ...body });
      expect(res.status).toBe(201);
      expect(res.body.webhook).toEqual({ delivered: true, status: 200 });
      return String(res.body.id);
    };

    const KINDS: [Json, InboundContentType, Json][] = [
      [{ kind: 'text', text: 'hi' }, 'text', { text: 'hi' }],
      [
        { kind: 'image', text: 'receipt' },
        'image',
        { text: 'receipt', media: expect.objectContaining({ mime_type: 'image/jpeg' }) },
      ],
      [{ kind: 'video' }, 'video', { media: expect.objectContaining({ mime_type: 'video/mp4' }) }],
      [{ kind: 'audio' }, 'audio', { media: expect.objectContaining({ mime_type: 'audio/mpeg' }) }],
      [{ kind: 'voice' }, 'voice', { media: expect.objectContaining({ handle: expect.any(String) }) }],
      [{ kind: 'document' }, 'document', { media: expect.objectContaining({ file_name: 'file.pdf' }) }],
      [{ kind: 'sticker' }, 'sticker', { media: expect.objectContaining({ mime_type: 'image/webp' }) }],
      [{ kind: 'location', text: 'Office' }, 'location', { location: expect.objectContaining({ name: 'Office' }) }],
      [{ kind: 'contacts', text: 'Bob' }, 'contacts', { contacts: [{ name: 'Bob', phones: ['+79990009999'] }] }],
      [
        { kind: 'reaction', reaction: { message_id: 'wamid.OURS1', emoji: '👍' } },
        'reaction',
        { reaction: { emoji: '👍', target_provider_message_id: 'wamid.OURS1' } },
      ],
      [
        { kind: 'button_reply', text: 'Yes', context_message_id: 'wamid.ASK1' },
        'reply',
        {
          text: 'Yes',
          reply: { kind: 'button', id: 'btn-1', title: 'Yes', payload: null, context_message_id: 'wamid.ASK1' },
        },
      ],
      [
        { kind: 'list_reply', text: 'Tuesday' },
        'reply',
        { reply: expect.objectContaining({ kind: 'list', title: 'Tuesday' }) },
      ],
      [
        { kind: 'flow', text: '{"flow_token":"t","size":"M"}' },
        'reply',
        { reply: expect.objectContaining({ kind: 'flow', payload: { flow_token: 't', size: 'M' } }) },
      ],
      [
        { kind: 'flow', text: 'not json' },
        'reply',
        { reply: expect.objectContaining({ kind: 'flow', payload: 'not json' }) },
      ],
      [
        { kind: 'quick_reply', text: 'Stop promotions' },
        'reply',
        { reply: expect.objectContaining({ kind: 'button', title: 'Stop promotions', payload: 'Stop promotions' }) },
      ],
      [
        { kind: 'edit', text: 'fixed', context_message_id: 'wamid.MINE1' },
        'edit',
        { text: 'fixed', edit: { target_provider_message_id: 'wamid.MINE1' } },
      ],
      [{ kind: 'unsupported' }, 'unsupported', { text: null }],
    ];

    it('delivers every kind as one message.received with its content', async () => {
      const ids: string[] = [];
      for (const [body] of KINDS) ids.push(await inbound(body));
      const events = await received((d) => ids.includes(d.provider_message_id), ids.length);
      expect(events).toHaveLength(ids.length);
      KINDS.forEach(([, type, content], i) => {
        const event = events.find((e) => e.data.provider_message_id === ids[i])!;
        expect(event.channel).toBe('whatsapp');
        expect(event.data.type).toBe(type);
        expect(event.data.content).toEqual(expect.objectContaining({ type, ...content }));
        expect(event.data.content.text).toBe(event.data.text);
      });
      // The reaction keeps its own event too.
      const reaction = await eventsOf(
        clients,
        platform.infra.topology,
        'message.reaction',
        (d) => d.from === '79990007711',
      );
      expect(reaction).toHaveLength(1);
    });

    it('stores a repeated message once', async () => {
      const id = await inbound({ kind: 'text', text: 'once', message_id: 'wamid.REPEAT1' });
      await inbound({ kind: 'text', text: 'once', message_id: 'wamid.REPEAT1' });
      // A later message, once there, shows the repeat has been through too (the relay keeps the order).
      const later = await inbound({ kind: 'text', text: 'after' });
      await received((d) => d.provider_message_id === later);
      // The second delivery was accepted and published; JetStream kept one.
      const after = await eventsOf<MessageReceivedData>(
        clients,
        platform.infra.topology,
        'message.received',
        (d) => d.provider_message_id === id,
      );
      expect(after).toHaveLength(1);
    });

    it('names the sender in each of the three shapes, and a changed id', async () => {
      const phone = await inbound({ from: '79990007722', text: 'by phone', profile_name: 'Ann' });
      const both = await inbound({
        from: '79990007722',
        text: 'by both',
        sender: 'phone_and_user_id',
        user_id: 'RU.7722',
      });
      const idOnly = await inbound({
        from: '79990007722',
        text: 'by id',
        sender: 'user_id',
        user_id: 'RU.7722',
        username: 'ann.lee',
      });
      const changed = await inbound({
        from: '79990007722',
        kind: 'user_id_change',
        sender: 'user_id',
        user_id: 'RU.7723',
        previous_user_id: 'RU.7722',
      });
      const ids = [phone, both, idOnly, changed];
      const events = await received((d) => ids.includes(d.provider_message_id), 4);
      const of = (id: string) => events.find((e) => e.data.provider_message_id === id)!.data;
      expect(of(phone)).toMatchObject({
        from: '79990007722',
        profile_name: 'Ann',
        sender: { phone: '79990007722', user_id: null, username: null, previous_user_id: null },
      });
      expect(of(both)).toMatchObject({
        from: '79990007722',
        sender: { phone: '79990007722', user_id: 'RU.7722', username: null },
      });
      expect(of(idOnly)).toMatchObject({
        from: 'RU.7722',
        text: 'by id',
        sender: { phone: null, user_id: 'RU.7722', username: 'ann.lee' },
      });
      expect(of(changed)).toMatchObject({
        from: 'RU.7723',
        type: 'unsupported',
        sender: { phone: null, user_id: 'RU.7723', previous_user_id: 'RU.7722' },
      });
    });

    it('refuses a reaction without its target and an unknown kind with a 400 problem', async () => {
      for (const body of [{ kind: 'reaction' }, { kind: 'edit', text: 'x' }, { kind: 'hologram' }]) {
        const res = await sandbox('whatsapp/inbound', { phone_number_id: number, from: '79990007711', ...body });
        expect(res.status).toBe(400);
      }
    });
  });

  describe('Telegram and MAX', () => {
    let userId: string;
    const connect = async (channel: 'telegram' | 'max') => {
      const b = (await sandbox(`${channel}/bots`, {})).body as unknown as { id: number; token: string };
      const { token } = await accounts.createAccount(`acct-${Math.random()}`, userId);
      const res = await fetch(`${platform.urls.gateway}/v1/connections`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ channel, bot_token: b.token }),
      });
      expect(res.status).toBe(201);
      return { bot: b, connectionId: String(((await res.json()) as Json).id) };
    };

    beforeAll(async () => {
      userId = (await api.user('system')).userId;
    });

    const BOT_KINDS: [Json, InboundContentType, Json][] = [
      [{ kind: 'text', text: 'hi' }, 'text', { text: 'hi' }],
      [
        { kind: 'image', text: 'look' },
        'image',
        { text: 'look', media: expect.objectContaining({ handle: expect.any(String) }) },
      ],
      [{ kind: 'video' }, 'video', { media: expect.objectContaining({ handle: expect.any(String) }) }],
      [{ kind: 'audio' }, 'audio', { media: expect.objectContaining({ handle: expect.any(String) }) }],
      [{ kind: 'document' }, 'document', { media: expect.objectContaining({ file_name: 'file.pdf' }) }],
      [{ kind: 'sticker' }, 'sticker', { media: expect.objectContaining({ handle: expect.any(String) }) }],
      [{ kind: 'location' }, 'location', { location: expect.objectContaining({ latitude: 55.7558 }) }],
      [{ kind: 'contact' }, 'contacts', { contacts: [{ name: 'Sandbox Friend', phones: ['+79990009999'] }] }],
      [{ kind: 'edit', text: 'fixed', message_id: '41' }, 'edit', { text: 'fixed', edit: expect.any(Object) }],
      [
        { kind: 'button', text: 'Stop promotions', callback_data: 'stop', message_id: '42' },
        'reply',
        { text: 'Stop promotions', reply: expect.objectContaining({ kind: 'button', id: 'stop', payload: 'stop' }) },
      ],
    ];
    const TELEGRAM_ONLY: [Json, InboundContentType, Json][] = [
      [{ kind: 'voice' }, 'voice', { media: expect.objectContaining({ mime_type: 'audio/ogg' }) }],
      [{ kind: 'venue', text: 'Office' }, 'location', { location: expect.objectContaining({ name: 'Office' }) }],
      [
        { kind: 'reaction', text: '🔥', message_id: '43' },
        'reaction',
        { reaction: { emoji: '🔥', target_provider_message_id: '5550077:43' } },
      ],
    ];

    it.each([
      ['telegram', '5550077', [...BOT_KINDS, ...TELEGRAM_ONLY]],
      ['max', '5550078', BOT_KINDS],
    ] as const)(
      '%s: every kind arrives as one message.received with its content; a repeat once',
      async (channel, from, kinds) => {
        const { bot, connectionId } = await connect(channel);
        const sent: number[] = [];
        for (const [body] of kinds) {
          const res = await sandbox(`${channel}/inbound`, { bot: bot.token, from, ...body });
          expect(res.status).toBe(201);
          expect(res.body.webhook).toEqual({ delivered: true, status: 200 });
          sent.push(Number(res.body.update_id));
        }
        // A repeat of the first update.
        await sandbox(`${channel}/inbound`, { bot: bot.token, from, repeat_update_id: sent[0] });
        const events = await received((d) => d.connection_id === connectionId, kinds.length);
        expect(events).toHaveLength(kinds.length);
        kinds.forEach(([, type, content], i) => {
          const event = events[i];
          expect(event).toMatchObject({ channel, user_id: userId });
          expect(event.data).toMatchObject({ from, type });
          expect(event.data.content).toEqual(expect.objectContaining({ type, ...content }));
          expect(event.data.sender).toMatchObject({ phone: null, user_id: from });
        });
        if (channel === 'telegram') {
          // The press is answered, so Telegram's loading indicator stops.
          await waitFor(
            async () => (await sandbox(`telegram/calls?method=answerCallbackQuery&bot_id=${bot.id}`)).body.length > 0,
            5000,
            'the press answered',
          );
        }
      },
    );

    it('refuses a kind the channel has no update for with a 400 problem', async () => {
      const { bot } = await connect('max');
      const res = await sandbox('max/inbound', { bot: bot.token, from: '5550079', kind: 'reaction', message_id: 'm' });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ status: 400 });
    });
  });
});

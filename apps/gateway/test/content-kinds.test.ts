import { MessageReceivedData } from '@app/contracts';
import { NatsClients } from '@app/messaging';
import { eventsEventually, waitFor } from '@app/testing';
import { createDataSource } from '@app/database';
import { DataSource } from 'typeorm';
import { ApiFactory, TestUser } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { registerSandboxNumber, sandboxOk } from '../../../test/support/sandbox';
import { botRendering, whatsappRendering } from '../../../test/support/sandbox-renderings';
import { AccountsRepository } from '../src/accounts/accounts.repository';
import { gatewaySchema } from '../src/database/schema';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Channel = 'whatsapp' | 'telegram' | 'max';

/** The keyboard rows of a recorded bot call: Telegram's reply_markup, MAX's inline_keyboard attachment. */
const telegramMarkup = (params: Json): Json =>
  typeof params.reply_markup === 'string' ? JSON.parse(params.reply_markup) : params.reply_markup;
const maxKeyboard = (params: Json): Json[][] =>
  (params.attachments as Json[]).find((a) => a.type === 'inline_keyboard')!.payload.buttons;

/** The customer's answer a case sends back through the sandbox, and what `message.received` says of it. */
interface Answer {
  whatsapp?: Json;
  bot?: Json;
  expect: (content: Json) => boolean;
}

interface Case {
  kind: string;
  content: Json;
  rendered: Record<Channel, string>;
  /** The outgoing payload each channel's API received. */
  whatsapp: (body: Json, answer: Json) => void;
  telegram: (call: { method: string; params: Json }) => void;
  max: (call: { method: string; params: Json }) => void;
  answer?: Answer;
}

/** The WhatsApp interactive message of a kind: its type, body text and action. */
const interactive = (sent: Json, type: string, text: string, action: Json) =>
  expect(sent.interactive).toEqual({ type, body: { text }, action });

const pressed = (id: string) => (c: Json) => c.type === 'reply' && c.reply?.id === id;

/**
 * Choices (title by id) the bots show as a keyboard of callback buttons, one a row, each sending its
 * id back; and the customer picking `pick`: on WhatsApp as the `whatsappReply` kind, on a bot by its callback.
 */
const callbackChoices = (
  titles: Record<string, string>,
  pick: string,
  whatsappReply: 'button_reply' | 'list_reply',
) => {
  const choices = Object.entries(titles);
  return {
    telegramKeyboard: (params: Json) =>
      expect(telegramMarkup(params)).toEqual({
        inline_keyboard: choices.map(([id, text]) => [{ text, callback_data: id }]),
      }),
    max: (call: { params: Json }) =>
      expect(maxKeyboard(call.params)).toEqual(choices.map(([id, text]) => [{ type: 'callback', text, payload: id }])),
    answer: {
      whatsapp: { kind: whatsappReply, reply_id: pick, text: titles[pick] },
      bot: { callback_data: pick },
      expect: pressed(pick),
    },
  };
};
const TIME_SECTIONS = [
  {
    title: 'Tomorrow',
    rows: [
      { id: 'slot-10', title: '10:00', description: 'Morning' },
      { id: 'slot-14', title: '14:00' },
    ],
  },
];
const confirmChoices = callbackChoices({ yes: 'Yes', no: 'No' }, 'no', 'button_reply');
const timeChoices = callbackChoices({ 'slot-10': '10:00', 'slot-14': '14:00' }, 'slot-14', 'list_reply');

/** 7 kinds x 3 channels: each case the payload the channel's emulator received and, where a customer answers, the answer. */
const CASES: Case[] = [
  {
    kind: 'text',
    content: { type: 'text', text: 'Hello & welcome' },
    rendered: { whatsapp: 'text', telegram: 'text', max: 'text' },
    whatsapp: (b) => expect(b).toMatchObject({ type: 'text', text: { body: 'Hello & welcome' } }),
    telegram: (c) => expect(c).toMatchObject({ method: 'sendMessage', params: { text: 'Hello &amp; welcome' } }),
    max: (c) => expect(c).toMatchObject({ method: 'messages', params: { text: 'Hello &amp; welcome' } }),
  },
  {
    kind: 'image',
    content: { type: 'image', url: 'https://cdn.example.com/parcel.jpg', caption: 'Your parcel' },
    rendered: { whatsapp: 'image', telegram: 'image', max: 'image' },
    whatsapp: (b) =>
      expect(b).toMatchObject({
        type: 'image',
        image: { link: 'https://cdn.example.com/parcel.jpg', caption: 'Your parcel' },
      }),
    telegram: (c) =>
      expect(c).toMatchObject({
        method: 'sendPhoto',
        params: { photo: 'https://cdn.example.com/parcel.jpg', caption: 'Your parcel' },
      }),
    max: (c) =>
      expect(c.params).toMatchObject({
        text: 'Your parcel',
        attachments: [{ type: 'image', payload: { url: 'https://cdn.example.com/parcel.jpg' } }],
      }),
  },
  {
    kind: 'buttons',
    content: {
      type: 'buttons',
      text: 'Confirm?',
      buttons: [
        { id: 'yes', title: 'Yes' },
        { id: 'no', title: 'No' },
      ],
    },
    rendered: { whatsapp: 'buttons', telegram: 'buttons', max: 'buttons' },
    whatsapp: (b) =>
      interactive(b, 'button', 'Confirm?', {
        buttons: [
          { type: 'reply', reply: { id: 'yes', title: 'Yes' } },
          { type: 'reply', reply: { id: 'no', title: 'No' } },
        ],
      }),
    telegram: (c) => {
      expect(c).toMatchObject({ method: 'sendMessage', params: { text: 'Confirm?' } });
      confirmChoices.telegramKeyboard(c.params);
    },
    max: confirmChoices.max,
    answer: confirmChoices.answer,
  },
  {
    kind: 'list',
    content: {
      type: 'list',
      text: 'Pick a time',
      button: 'Times',
      sections: TIME_SECTIONS,
    },
    rendered: { whatsapp: 'list', telegram: 'buttons', max: 'buttons' },
    whatsapp: (b) =>
      // The sections as sent, rows and descriptions included.
      interactive(b, 'list', 'Pick a time', { button: 'Times', sections: TIME_SECTIONS }),
    telegram: (c) => timeChoices.telegramKeyboard(c.params),
    max: timeChoices.max,
    answer: timeChoices.answer,
  },
  {
    kind: 'cta_url',
    content: {
      type: 'cta_url',
      text: 'Your parcel is on its way',
      button: { title: 'Track', url: 'https://shop.example/t/1' },
    },
    rendered: { whatsapp: 'cta_url', telegram: 'cta_url', max: 'cta_url' },
    whatsapp: (b) =>
      interactive(b, 'cta_url', 'Your parcel is on its way', {
        name: 'cta_url',
        parameters: { display_text: 'Track', url: 'https://shop.example/t/1' },
      }),
    telegram: (c) =>
      expect(telegramMarkup(c.params)).toEqual({
        inline_keyboard: [[{ text: 'Track', url: 'https://shop.example/t/1' }]],
      }),
    max: (c) =>
      expect(maxKeyboard(c.params)).toEqual([[{ type: 'link', text: 'Track', url: 'https://shop.example/t/1' }]]),
  },
  {
    kind: 'location_request',
    content: { type: 'location_request', text: 'Where should we deliver?' },
    rendered: { whatsapp: 'location_request', telegram: 'location_request', max: 'location_request' },
    whatsapp: (b) => interactive(b, 'location_request_message', 'Where should we deliver?', { name: 'send_location' }),
    telegram: (c) =>
      expect(telegramMarkup(c.params)).toEqual({
        keyboard: [[{ text: 'Send location', request_location: true }]],
        one_time_keyboard: true,
        resize_keyboard: true,
      }),
    max: (c) =>
      expect(maxKeyboard(c.params)).toEqual([[{ type: 'request_geo_location', text: 'Send location', quick: false }]]),
    answer: {
      whatsapp: { kind: 'location', text: 'Home' },
      bot: { kind: 'location', text: 'Home' },
      expect: (c) => c.type === 'location',
    },
  },
  {
    kind: 'flow',
    content: {
      type: 'flow',
      text: 'Book a table',
      flow_id: '1234567890',
      cta: 'Book',
      screen: 'BOOKING',
      data: { party: 2 },
      fallback_url: 'https://shop.example/book',
    },
    rendered: { whatsapp: 'flow', telegram: 'cta_url', max: 'cta_url' },
    whatsapp: (b, answer) =>
      interactive(b, 'flow', 'Book a table', {
        name: 'flow',
        parameters: {
          flow_message_version: '3',
          flow_token: answer.flow_token,
          flow_id: '1234567890',
          flow_cta: 'Book',
          flow_action: 'navigate',
          flow_action_payload: { screen: 'BOOKING', data: { party: 2 } },
        },
      }),
    telegram: (c) =>
      expect(telegramMarkup(c.params)).toEqual({
        inline_keyboard: [[{ text: 'Book', url: 'https://shop.example/book' }]],
      }),
    max: (c) =>
      expect(maxKeyboard(c.params)).toEqual([[{ type: 'link', text: 'Book', url: 'https://shop.example/book' }]]),
  },
];

/**
 * The content kinds' contract, through every service: each kind sent with `POST /v1/messages` on
 * WhatsApp, Telegram and MAX, the payload each channel's emulator accepted (validated as the real
 * API would), the answer's `rendered_as` (the declared fallbacks included), and each customer's
 * press, pick or answer arriving back as `message.received`.
 */
describe('content kinds on every channel', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let clients: NatsClients;
  let gatewayDb: DataSource;
  let user: TestUser;
  let token: string;
  let phoneNumberId: string;
  const bots: Record<'telegram' | 'max', { id: number; token: string }> = {} as never;
  const customer = '5511987651001';

  const call = async (path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${platform.urls.gateway}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        ...headers,
        Authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as Json };
  };
  const sandbox = (path: string, body?: unknown) => sandboxOk<Json>(platform.urls.sandbox, path, body);
  const holds = async () =>
    (
      (await factory.dataSource.query(`SELECT count(*)::int AS n FROM holds WHERE user_id = $1`, [user.userId])) as {
        n: number;
      }[]
    )[0].n;
  const received = (match: (d: MessageReceivedData) => boolean) =>
    eventsEventually<MessageReceivedData>(clients, platform.infra.topology, 'message.received', match);
  /** A recipient of its own per case and channel, so each case reads its own calls. */
  const recipientOf = (channel: Channel, i: number) =>
    channel === 'whatsapp' ? customer : `6${channel === 'max' ? 2 : 1}00${i}01`;

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'gw-content-kinds',
      services: ['api', 'gateway', 'queue', 'sandbox'],
      env: { SANDBOX_STATUS_DELAY_MS: '50' },
    });
    clients = await NatsClients.connect({ url: platform.infra.natsUrl, name: 'gw-content-kinds-test' });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    gatewayDb = createDataSource(platform.infra.databaseUrl, gatewaySchema, 2);
    await gatewayDb.initialize();
    user = await factory.user('system', { balance: 10 });
    const app = await factory.activeApp(user.userId, { message_limit: 'TIER_250' });
    phoneNumberId = String(app.phoneNumberId);
    await registerSandboxNumber(platform.urls.sandbox, app);
    token = (await new AccountsRepository(gatewayDb).createAccount('every channel', user.userId)).token;
    expect((await call('/v1/connections', { channel: 'whatsapp', app_id: app.id })).status).toBe(201);
    for (const channel of ['telegram', 'max'] as const) {
      bots[channel] = (await sandbox(`${channel}/bots`, {})) as { id: number; token: string };
      expect((await call('/v1/connections', { channel, bot_token: bots[channel].token })).status).toBe(201);
    }
    // The customer writes first: WhatsApp's customer-service window is open for free-form content.
    await sandbox('whatsapp/inbound', { phone_number_id: phoneNumberId, from: customer, text: 'Hi' });
    await waitFor(
      async () =>
        (await call('/v1/messages', { channel: 'whatsapp', to: customer, content: { type: 'text', text: 'Hi there' } }))
          .status === 202,
      20_000,
      'the window opened by the inbound message',
      250,
    );
  });

  afterAll(async () => {
    await clients?.drain();
    await gatewayDb?.destroy();
    await factory?.close();
    await platform?.stop();
  });

  const table = CASES.flatMap((c, i) =>
    (['whatsapp', 'telegram', 'max'] as const).map((ch) => [c.kind, ch, c, i] as const),
  );

  it.each(table)(
    '%s on %s: the payload the channel received and the answer that comes back',
    async (_k, channel, c, i) => {
      const to = recipientOf(channel, i);
      const sent = await call('/v1/messages', { channel, to, content: c.content });
      expect(sent.status).toBe(202);
      expect(sent.body).toMatchObject({ id: expect.any(String), status: 'QUEUED', rendered_as: c.rendered[channel] });
      if (c.kind === 'flow') expect(sent.body.flow_token).toMatch(/^ft_[A-Za-z0-9_-]{16,}$/);

      if (channel === 'whatsapp') {
        c.whatsapp(await whatsappRendering(platform.urls.sandbox, phoneNumberId, sent.body.id), sent.body);
      } else {
        c[channel](await botRendering(platform.urls.sandbox, channel, bots[channel].id, to));
      }

      if (channel === 'whatsapp' && c.kind === 'flow') {
        // The submitted Flow carries the token the send answered.
        const response = JSON.stringify({ flow_token: sent.body.flow_token, party: '2' });
        await sandbox('whatsapp/inbound', {
          phone_number_id: phoneNumberId,
          from: customer,
          kind: 'flow',
          text: response,
        });
        const [event] = await received(
          (d) =>
            d.content.reply?.kind === 'flow' && JSON.stringify(d.content.reply.payload).includes(sent.body.flow_token),
        );
        expect(event.data.from).toBe(customer);
        return;
      }
      if (!c.answer) return;
      if (channel === 'whatsapp') {
        await sandbox('whatsapp/inbound', { phone_number_id: phoneNumberId, from: customer, ...c.answer.whatsapp });
      } else {
        await sandbox(`${channel}/inbound`, { bot: String(bots[channel].id), from: to, ...c.answer.bot });
      }
      const [event] = await received((d) => d.from === to && c.answer!.expect(d.content as unknown as Json));
      expect(event.data.connection_id).toBeTruthy();
    },
  );

  it('without its web form, a Flow on Telegram and MAX is its text alone', async () => {
    const content = { type: 'flow', text: 'Book on WhatsApp', flow_id: '1234567890', cta: 'Book' };
    for (const channel of ['telegram', 'max'] as const) {
      const to = recipientOf(channel, 90);
      const sent = await call('/v1/messages', { channel, to, content });
      expect(sent.status).toBe(202);
      expect(sent.body.rendered_as).toBe('text');
      const rendering = await botRendering(platform.urls.sandbox, channel, bots[channel].id, to);
      expect(rendering.params.text).toBe('Book on WhatsApp');
      expect(rendering.params.reply_markup ?? rendering.params.attachments).toBeUndefined();
    }
  });

  it('a repeated Flow send (the same Idempotency-Key) answers the same message and flow_token', async () => {
    const body = {
      channel: 'telegram',
      to: recipientOf('telegram', 91),
      content: { type: 'flow', text: 'Book', flow_id: '1234567890', cta: 'Book' },
    };
    const first = await call('/v1/messages', body, { 'Idempotency-Key': 'flow-1' });
    const again = await call('/v1/messages', body, { 'Idempotency-Key': 'flow-1' });
    expect(first.status).toBe(202);
    expect(again.body).toEqual(first.body);
    expect(first.body.flow_token).toMatch(/^ft_/);
  });

  it('refuses what a channel cannot carry, naming the field, before any hold', async () => {
    const before = await holds();
    const refused = async (channel: Channel, content: Json, fields: string[]) => {
      const res = await call('/v1/messages', { channel, to: recipientOf(channel, 99), content });
      expect([channel, res.status, res.body.errors?.map((e: Json) => e.field)]).toEqual([channel, 400, fields]);
    };
    const buttons = (title: string, id = 'ok') => ({ type: 'buttons', text: 'Pick', buttons: [{ id, title }] });
    // WhatsApp's button title is 20 characters; Telegram takes it.
    await refused('whatsapp', buttons('x'.repeat(21)), ['content.buttons.0.title']);
    // Telegram's callback data is 64 bytes.
    await refused('telegram', buttons('Ok', 'é'.repeat(33)), ['content.buttons.0.id']);
    // At most 3 buttons and 10 rows anywhere; ids unique.
    await refused('max', { ...buttons('A'), buttons: ['a', 'b', 'c', 'd'].map((id) => ({ id, title: id })) }, [
      'content.buttons',
    ]);
    const rows = Array.from({ length: 6 }, (_, n) => ({ id: `r${n}`, title: `Row ${n}` }));
    await refused(
      'telegram',
      {
        type: 'list',
        text: 'Pick',
        button: 'Open',
        sections: [
          { title: 'A', rows },
          { title: 'B', rows: rows.map((r) => ({ ...r, id: `b${r.id}` })) },
        ],
      },
      ['content.sections'],
    );
    await refused(
      'max',
      {
        ...buttons('A'),
        buttons: [
          { id: 'a', title: 'A' },
          { id: 'a', title: 'B' },
        ],
      },
      ['content.buttons'],
    );
    // WhatsApp's row title is 24 characters and its body 1,024.
    await refused(
      'whatsapp',
      {
        type: 'list',
        text: 'y'.repeat(1025),
        button: 'Open',
        sections: [{ title: 'A', rows: [{ id: 'r', title: 'z'.repeat(25) }] }],
      },
      ['content.text', 'content.sections.0.rows.0.title'],
    );
    // Unknown fields and fields of another kind are 400 too.
    await refused('telegram', { ...buttons('A'), buttons: [{ id: 'a', title: 'A', color: 'red' }] }, [
      'content.buttons.0.color',
    ]);
    await refused(
      'telegram',
      { type: 'cta_url', text: 'Go', button: { title: 'Go', url: 'https://a.example', x: 1 } },
      ['content.button'],
    );
    await refused('telegram', { type: 'location_request', text: 'Where?', buttons: [] }, ['content.buttons']);
    await refused('telegram', { type: 'flow', text: 'Book', flow_id: '1', cta: 'Book', flow_token: 'mine' }, [
      'content.flow_token',
    ]);
    expect(await holds()).toBe(before);
  });
});

import { SecretBox } from '@app/auth';
import { DEV_CREDENTIALS_KEYS } from '@app/config';
import { newMessageId, OutboundMessage, Topology } from '@app/contracts';
import { NatsClients } from '@app/messaging';
import { Platform, startPlatform } from '../../../test/support/platform';
import { EventsTail, publishOutbound } from './support/dispatch-kit';

interface BotCall {
  bot_id: number;
  method: string;
  params: Record<string, unknown>;
  outcome: string;
  message_id: string | null;
}

describe('queue delivery to Telegram and MAX (sandbox)', () => {
  let platform: Platform;
  let clients: NatsClients;
  let t: Topology;
  let events: EventsTail;
  const box = SecretBox.fromSpec(DEV_CREDENTIALS_KEYS);

  const control = async (path: string, body?: unknown) => {
    const res = await fetch(`${platform.urls.sandbox}/_sandbox/${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      ...(body !== undefined ? { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) } : {}),
    });
    return (await res.json()) as unknown;
  };
  const template = (channel: 'telegram' | 'max', token: string, recipient: string): OutboundMessage => ({
    id: newMessageId(),
    channel,
    priority: 'service',
    category: 'UTILITY',
    user_id: 'user-1',
    app_id: null,
    sender: { connection_id: `conn-${channel}`, credential: box.seal(token) },
    recipient,
    kind: 'TEMPLATE',
    content: {
      template: {
        name: 'order_ready',
        language: 'en',
        rendered: {
          header: null,
          body: 'Order <7> is ready',
          footer: null,
          buttons: [{ type: 'QUICK_REPLY', text: 'Thanks' }],
        },
      },
    },
    queued_at: Date.now(),
  });

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'queue-bots',
      services: ['queue', 'sandbox'],
      topology: { outboundMaxDeliver: 4, ackWaitMs: 5000 },
      env: {
        CHANNELS: 'telegram,max',
        QUEUE_BACKOFF_BASE_MS: '200',
        QUEUE_BACKOFF_MAX_MS: '1000',
        BOT_API_TIMEOUT_MS: '2000',
      },
    });
    t = platform.infra.topology;
    clients = await NatsClients.connect({ url: platform.infra.natsUrl, name: 'queue-bots-test' });
    events = new EventsTail(clients, t);
  });
  afterAll(async () => {
    await clients?.drain();
    await platform?.stop();
  });

  it.each(['telegram', 'max'] as const)(
    'delivers a %s template once and publishes message.sent with the channel id',
    async (channel) => {
      const bot = (await control(`${channel}/bots`, {})) as { id: number; token: string };
      const msg = template(channel, bot.token, '5550001');
      await publishOutbound(clients, t, msg);
      const sent = await events.waitFor(msg.id, 'message.sent');
      expect(sent.channel).toBe(channel);
      expect(sent.data.status).toBe('SENT');
      const calls = ((await control(`${channel}/calls?bot_id=${bot.id}`)) as BotCall[]).filter(
        (c) => c.method !== 'setWebhook',
      );
      expect(calls).toHaveLength(1);
      expect(calls[0].params.text).toBe('Order &lt;7&gt; is ready');
      expect(sent.data.provider_message_id).toContain(calls[0].message_id!);
    },
  );

  it.each(['telegram', 'max'] as const)(
    'fails a %s message to a user who blocked the bot for good, without retrying',
    async (channel) => {
      const bot = (await control(`${channel}/bots`, {})) as { id: number; token: string };
      const msg = template(channel, bot.token, '5554444');
      await publishOutbound(clients, t, msg);
      const failed = await events.waitFor(msg.id, 'message.failed');
      expect(failed.data.error).toMatchObject({ code: 'recipient_blocked' });
      expect(((await control(`${channel}/calls?include=all&bot_id=${bot.id}`)) as BotCall[]).length).toBe(1);
    },
  );

  it('retries a Telegram 429 after retry_after for that bot and delivers once', async () => {
    const bot = (await control('telegram/bots', {})) as { id: number; token: string };
    await control('telegram/faults', { mode: '429', retry_after_seconds: 1, count: 1, bot: String(bot.id) });
    const msg = template('telegram', bot.token, '5550002');
    await publishOutbound(clients, t, msg);
    await events.waitFor(msg.id, 'message.sent');
    const calls = (await control(`telegram/calls?include=all&bot_id=${bot.id}`)) as BotCall[];
    expect(calls.map((c) => c.outcome)).toEqual(['fault', 'accepted']);
  });
});

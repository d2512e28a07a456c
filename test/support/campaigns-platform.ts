import type { AppEntity } from '../../apps/api/src/wa-apps/app.entity';
import { GatewayCall, gatewayAccount, gatewayClient } from './campaigns';
import { ApiFactory, TestUser } from './factories';
import { Platform, startPlatform } from './platform';
import { registerSandboxBot, registerSandboxNumber } from './sandbox';
import { Endpoint } from './webhook-endpoint';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const CATEGORIES = ['MARKETING', 'MARKETING_LITE', 'UTILITY', 'SERVICE', 'AUTHENTICATION'];
const prices = (p: number) => Object.fromEntries(CATEGORIES.map((c) => [c, p]));
/** What the api holds for a MARKETING template: on WhatsApp MESSAGE_PRICES, on Telegram CHANNEL_MESSAGE_PRICES. */
export const WHATSAPP_PRICE = 0.05;
export const TELEGRAM_PRICE = 0.01;

/** What the campaign cases work with; the platform parts are filled in by `beforeAll`. */
export interface CampaignsPlatform {
  platform: Platform;
  factory: ApiFactory;
  /** A system account with a balance of 100, its WhatsApp number and Telegram bot connected. */
  user: TestUser;
  app: AppEntity;
  bot: { id: number; token: string };
  /** The gateway as the user's account. */
  gateway: GatewayCall;
  /** Subscribed to the campaign's lifecycle and its messages' sent and failed events. */
  endpoint: Endpoint;
  /** The user's balance as the api reports it. */
  balance(): Promise<number>;
  /** Accepted sends of the sandbox's WhatsApp emulator from one number (every one with `include=all`). */
  whatsappSends(phoneNumberId: string, include?: string): Promise<{ body: { to: string }; outcome: string }[]>;
  /** Sends the bot's emulator accepted, per chat. */
  telegramSends(): Promise<{ outcome: string; params: { chat_id?: unknown } }[]>;
}

/** Every service and the channel emulators on their own database and streams, with one account set up to send campaigns. */
export function useCampaignsPlatform(suiteName = 'e2e-campaigns'): CampaignsPlatform {
  const suite = {
    endpoint: new Endpoint(),
    async balance() {
      const res = await fetch(`${suite.platform.urls.api}/api/v1/users/${suite.user.userId}/balances`, {
        headers: { authorization: suite.user.auth },
      });
      return ((await res.json()) as Json).balance as number;
    },
    async whatsappSends(phoneNumberId, include = '') {
      const res = await fetch(
        `${suite.platform.urls.sandbox}/_sandbox/whatsapp/messages?phone_number_id=${phoneNumberId}${include ? `&include=${include}` : ''}`,
      );
      return (await res.json()) as { body: { to: string }; outcome: string }[];
    },
    async telegramSends() {
      const res = await fetch(`${suite.platform.urls.sandbox}/_sandbox/telegram/calls?bot_id=${suite.bot.id}`);
      const calls = (await res.json()) as { outcome: string; params: { chat_id?: unknown } }[];
      return calls.filter((c) => c.outcome === 'accepted' && c.params.chat_id !== undefined);
    },
  } as CampaignsPlatform;

  beforeAll(async () => {
    const platform = await startPlatform({
      suite: suiteName,
      services: ['api', 'gateway', 'queue', 'webhooks', 'sandbox'],
      env: {
        SANDBOX_STATUS_DELAY_MS: '50',
        WEBHOOK_POLL_INTERVAL_MS: '100',
        CHANNEL_MESSAGE_PRICES: JSON.stringify({ telegram: prices(TELEGRAM_PRICE), max: prices(0) }),
        // A burst of 285 paced at 80/s per number: no attempt may be taken for unanswered while it waits its turn.
        FAILOVER_RECEIPT_SECONDS: '60',
        SETTLEMENT_INTERVAL_MS: '500',
        RATE_LIMIT_PER_SECOND: '100000',
        RATE_LIMIT_BURST: '100000',
        CAMPAIGN_TICK_MS: '100',
      },
    });
    suite.platform = platform;
    const factory = (suite.factory = await ApiFactory.connect(platform.infra.databaseUrl));
    const user = (suite.user = await factory.user('system', { balance: 100 }));
    const app = (suite.app = await factory.activeApp(user.userId, { message_limit: 'TIER_UNLIMITED' }));
    await registerSandboxNumber(platform.urls.sandbox, app);
    await factory.sendableTemplate(app.id, { name: 'promo', category: 'MARKETING', body: 'Hello {{1}}' });
    const gateway = (suite.gateway = gatewayClient(
      platform.urls.gateway,
      await gatewayAccount(platform.infra.databaseUrl, 'shop', user.userId),
    ));
    expect((await gateway('POST', '/v1/connections', { channel: 'whatsapp', app_id: app.id })).status).toBe(201);
    const bot = (suite.bot = await registerSandboxBot(platform.urls.sandbox, 'telegram'));
    expect((await gateway('POST', '/v1/connections', { channel: 'telegram', bot_token: bot.token })).status).toBe(201);
    const endpoint = suite.endpoint;
    await endpoint.open();
    const sub = await fetch(`${platform.urls.api}/api/v1/subscriptions`, {
      method: 'POST',
      headers: { authorization: user.auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        url: endpoint.url(),
        events: ['campaign.started', 'campaign.paused', 'campaign.completed', 'message.sent', 'message.failed'],
      }),
    });
    expect(sub.status).toBe(201);
    endpoint.secret = ((await sub.json()) as Json).secret as string;
  });

  afterAll(async () => {
    await suite.endpoint.close();
    await suite.factory?.close();
    await suite.platform?.stop();
  });

  return suite;
}

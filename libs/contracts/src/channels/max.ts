import { MAX_ADDRESSES } from '../addresses';
import { BOT_API_TIMEOUT_SETTING } from './bot-settings';
import type { ChannelRegistration } from './registration';

/** MAX bots: no receipts (a message ends at SENT), priced by CHANNEL_MESSAGE_PRICES, paced per bot. */
export const MAX_CHANNEL = {
  name: 'max',
  kind: 'messenger',
  connection: 'bot',
  gatewaySends: true,
  receipts: false,
  pricing: 'channel_table',
  pacing: { settings: { rate: 'ratePerBot', campaignRate: 'campaignRate' } },
  addresses: MAX_ADDRESSES,
  sendTo: { message: 'to must be a MAX user or chat id (an integer)' },
  settings: {
    mediaMaxBytes: {
      env: 'MAX_MEDIA_MAX_BYTES',
      type: 'int',
      default: 50 * 1024 * 1024,
      min: 1024,
      max: 4 * 1024 * 1024 * 1024,
      services: ['gateway'],
      description:
        'Largest inbound file the gateway keeps (as large as the platform lets a bot upload); a larger one is `too_large`',
    },
    apiUrl: {
      env: 'MAX_API_URL',
      type: 'url',
      default: 'http://localhost:3900/max',
      services: ['gateway', 'queue'],
      description: 'MAX Bot API: https://platform-api2.max.ru in production; the sandbox by default',
    },
    timeoutMs: BOT_API_TIMEOUT_SETTING,
    ratePerBot: {
      env: 'QUEUE_MAX_RATE_PER_BOT',
      type: 'int',
      default: 30,
      min: 1,
      max: 10_000,
      services: ['queue'],
      description: 'Requests per second per bot (MAX allows 30)',
    },
    campaignRate: {
      env: 'CAMPAIGN_PACING_MAX',
      type: 'number',
      default: 30,
      min: 0.1,
      max: 10_000,
      services: ['api'],
      description: "Campaign messages per second per MAX bot (the queue's QUEUE_MAX_RATE_PER_BOT by default)",
    },
  },
} as const satisfies ChannelRegistration;

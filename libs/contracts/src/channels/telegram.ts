import { TELEGRAM_ADDRESSES } from '../addresses';
import { BOT_API_TIMEOUT_SETTING } from './bot-settings';
import type { ChannelRegistration } from './registration';

/** Telegram bots: no receipts (a message ends at SENT), priced by CHANNEL_MESSAGE_PRICES, paced per bot and chat. */
export const TELEGRAM_CHANNEL = {
  name: 'telegram',
  kind: 'messenger',
  connection: 'bot',
  gatewaySends: true,
  receipts: false,
  pricing: 'channel_table',
  pacing: {
    settings: { rate: 'ratePerBot', recipientIntervalMs: 'chatIntervalMs', campaignRate: 'campaignRate' },
  },
  addresses: TELEGRAM_ADDRESSES,
  sendTo: { message: 'to must be a Telegram chat id (an integer) or a public channel username (@name)' },
  settings: {
    mediaMaxBytes: {
      env: 'TELEGRAM_MEDIA_MAX_BYTES',
      type: 'int',
      default: 20 * 1024 * 1024,
      min: 1024,
      max: 4 * 1024 * 1024 * 1024,
      services: ['gateway'],
      description:
        'Largest inbound file the gateway keeps: the Bot API lets bots download up to 20 MB; a larger one is `too_large`',
    },
    apiUrl: {
      env: 'TELEGRAM_API_URL',
      type: 'url',
      default: 'http://localhost:3900/telegram',
      services: ['gateway', 'queue'],
      description: 'Telegram Bot API root: https://api.telegram.org in production; the sandbox by default',
    },
    timeoutMs: BOT_API_TIMEOUT_SETTING,
    ratePerBot: {
      env: 'QUEUE_TELEGRAM_RATE_PER_BOT',
      type: 'int',
      default: 30,
      min: 1,
      max: 10_000,
      services: ['queue'],
      description: 'Messages per second per bot (Telegram documents about 30)',
    },
    chatIntervalMs: {
      env: 'QUEUE_TELEGRAM_CHAT_INTERVAL_MS',
      type: 'int',
      default: 1000,
      min: 0,
      max: 600_000,
      services: ['queue'],
      description: 'Least time between two messages of one bot to one chat (Telegram documents one per second)',
    },
    campaignRate: {
      env: 'CAMPAIGN_PACING_TELEGRAM',
      type: 'number',
      default: 30,
      min: 0.1,
      max: 10_000,
      services: ['api'],
      description: "Campaign messages per second per Telegram bot (the queue's QUEUE_TELEGRAM_RATE_PER_BOT by default)",
    },
  },
} as const satisfies ChannelRegistration;

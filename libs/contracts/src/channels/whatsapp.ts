import { WHATSAPP_ADDRESSES } from '../addresses';
import type { ChannelRegistration } from './registration';

/** WhatsApp Business (the Cloud API): template sends paced per number, priced by template category, with receipts. */
export const WHATSAPP_CHANNEL = {
  name: 'whatsapp',
  kind: 'messenger',
  connection: 'app',
  gatewaySends: true,
  receipts: true,
  pricing: 'templates',
  pacing: {
    settings: {
      rate: 'ratePerSender',
      burst: 'burstPerSender',
      recipientIntervalMs: 'recipientIntervalMs',
      campaignRate: 'campaignRate',
    },
  },
  addresses: WHATSAPP_ADDRESSES,
  // Sends reach a phone, not the other kinds a contact may be known by.
  sendTo: { kinds: ['phone'] },
  settings: {
    mediaMaxBytes: {
      env: 'WHATSAPP_MEDIA_MAX_BYTES',
      type: 'int',
      default: 100 * 1024 * 1024,
      min: 1024,
      max: 4 * 1024 * 1024 * 1024,
      services: ['gateway'],
      description:
        'Largest inbound file the gateway keeps (WhatsApp documents up to 100 MB; images 5 MB, audio and video 16 MB); a larger one is `too_large`',
    },
    graphUrl: {
      env: 'WHATSAPP_GRAPH_URL',
      type: 'url',
      default: 'http://localhost:3900',
      services: ['gateway', 'queue'],
      description: 'Graph API base URL: https://graph.facebook.com in production; the sandbox by default',
    },
    apiVersion: {
      env: 'WHATSAPP_API_VERSION',
      type: 'text',
      default: 'v21.0',
      pattern: { regex: /^v\d+\.\d+$/, hint: 'must look like v21.0' },
      services: ['gateway', 'queue'],
      description: 'Graph API version',
    },
    accessToken: {
      env: 'WHATSAPP_ACCESS_TOKEN',
      type: 'text',
      default: 'sandbox-access-token',
      minLength: 8,
      secret: true,
      services: ['gateway', 'queue'],
      description: "The business solution provider's system-user token, valid for every WABA",
    },
    timeoutMs: {
      env: 'WHATSAPP_TIMEOUT_MS',
      type: 'int',
      default: { gateway: 4000, queue: 10_000 },
      min: 100,
      max: { gateway: 60_000, queue: 120_000 },
      services: ['gateway', 'queue'],
      description: "Graph API calls: the gateway's template calls (below its callers' 5 s timeout), the queue's sends",
    },
    ratePerSender: {
      env: 'QUEUE_WHATSAPP_RATE_PER_SENDER',
      type: 'int',
      default: 80,
      min: 1,
      max: 100_000,
      services: ['queue'],
      description: 'Messages per second per sending phone number (Cloud API default throughput: 80)',
    },
    burstPerSender: {
      env: 'QUEUE_WHATSAPP_BURST_PER_SENDER',
      type: 'int',
      default: 1,
      min: 1,
      max: 100_000,
      services: ['queue'],
      description: 'Messages a sender may send at once before the rate applies (1: evenly spaced)',
    },
    recipientIntervalMs: {
      env: 'QUEUE_WHATSAPP_RECIPIENT_INTERVAL_MS',
      type: 'int',
      default: 1000,
      min: 0,
      max: 3_600_000,
      services: ['queue'],
      description: 'Least time between two messages from one sender to one recipient; 0 disables',
    },
    campaignRate: {
      env: 'CAMPAIGN_PACING_WHATSAPP',
      type: 'number',
      default: 80,
      min: 0.1,
      max: 100_000,
      services: ['api'],
      description:
        "Campaign messages per second per WhatsApp number (the queue's QUEUE_WHATSAPP_RATE_PER_SENDER by default)",
    },
  },
} as const satisfies ChannelRegistration;

import type { ChannelPacing } from './campaigns';

/**
 * Messages per second one sender may send on each channel (a WhatsApp number: the Cloud API's
 * default throughput of 80; a Telegram bot: about 30; a MAX bot: 30). The queue's senders pace to
 * these by default, and the campaign runner feeds them no faster.
 */
export const CHANNEL_SEND_RATES: Readonly<ChannelPacing> = { whatsapp: 80, telegram: 30, max: 30 };

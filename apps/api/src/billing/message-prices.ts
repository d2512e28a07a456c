import { Injectable } from '@nestjs/common';
import type { Channel, MessageCategory } from '@app/contracts';
import { ApiConfig, PRICED_BOT_CHANNELS } from '../config';

/**
 * The configured price of a message, in the user's currency: by category on WhatsApp
 * (MESSAGE_PRICES), by channel and category on the bot channels (CHANNEL_MESSAGE_PRICES).
 */
@Injectable()
export class MessagePrices {
  private readonly table: Record<MessageCategory, number>;
  private readonly channels: Record<string, Record<MessageCategory, number>>;

  constructor(config: ApiConfig) {
    this.table = config.messagePrices;
    this.channels = config.channelMessagePrices;
  }

  priceOf(category: MessageCategory, channel: Channel = 'whatsapp'): number {
    if (PRICED_BOT_CHANNELS.includes(channel)) {
      return this.channels[channel][category];
    }
    return this.table[category];
  }
}

import { Injectable } from '@nestjs/common';
import type { MessageCategory } from '@app/contracts';
import { ApiConfig } from '../config';

/** The configured price of each message category (MESSAGE_PRICES), in the user's currency. */
@Injectable()
export class MessagePrices {
  private readonly table: Record<MessageCategory, number>;

  constructor(config: ApiConfig) {
    this.table = config.messagePrices;
  }

  priceOf(category: MessageCategory): number {
    return this.table[category];
  }
}

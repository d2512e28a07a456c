import { Body, Controller, Headers, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { PublicRateLimitGuard } from '../../public-rate-limit/public-rate-limit.guard';
import { BotInboundService } from './bot-inbound.service';

/** Where connected bots' channels post their updates, one URL per connection. */
@ApiExcludeController()
@Controller('v1/inbound')
@UseGuards(PublicRateLimitGuard)
export class BotInboundController {
  constructor(private readonly inbound: BotInboundService) {}

  /** Telegram sends the connection's secret in X-Telegram-Bot-Api-Secret-Token. */
  @Post('telegram/:connectionId')
  @HttpCode(200)
  telegram(
    @Param('connectionId') connectionId: string,
    @Headers('x-telegram-bot-api-secret-token') secret: string | undefined,
    @Body() update: unknown,
  ): Promise<{ events: number }> {
    return this.inbound.receive('telegram', connectionId, 'X-Telegram-Bot-Api-Secret-Token', secret, update);
  }

  /** MAX sends the subscription's secret in X-Max-Bot-Api-Secret. */
  @Post('max/:connectionId')
  @HttpCode(200)
  max(
    @Param('connectionId') connectionId: string,
    @Headers('x-max-bot-api-secret') secret: string | undefined,
    @Body() update: unknown,
  ): Promise<{ events: number }> {
    return this.inbound.receive('max', connectionId, 'X-Max-Bot-Api-Secret', secret, update);
  }
}

import { Module } from '@nestjs/common';
import { BotInboundModule } from './bots/bot-inbound.module';
import { RawBodyCapture } from '@app/server';
import { WhatsAppInboundModule } from './whatsapp/whatsapp-inbound.module';

/** Channel callbacks: verified, normalized and published as events. */
@Module({
  imports: [WhatsAppInboundModule, BotInboundModule],
  providers: [RawBodyCapture],
})
export class InboundModule {}

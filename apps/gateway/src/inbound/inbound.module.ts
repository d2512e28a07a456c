import { Module } from '@nestjs/common';
import { PixelModule } from '../pixel/pixel.module';
import { BotInboundModule } from './bots/bot-inbound.module';
import { RawBodyCapture } from '@app/server';
import { InboundRelay } from './inbound.relay';
import { WhatsAppInboundModule } from './whatsapp/whatsapp-inbound.module';

/** Channel callbacks (verified, normalized and published as events) and the relay of what waits in INBOUND. */
@Module({
  imports: [WhatsAppInboundModule, BotInboundModule, PixelModule],
  providers: [RawBodyCapture, InboundRelay],
})
export class InboundModule {}

import { Module } from '@nestjs/common';
import { LinksModule } from '../links/links.module';
import { PixelModule } from '../pixel/pixel.module';
import { BotInboundModule } from './bots/bot-inbound.module';
import { InboundRelay } from './inbound.relay';
import { WhatsAppInboundModule } from './whatsapp/whatsapp-inbound.module';

/** Channel callbacks (verified, normalized and published as events) and the relay of what waits in INBOUND. */
@Module({
  imports: [WhatsAppInboundModule, BotInboundModule, PixelModule, LinksModule],
  providers: [InboundRelay],
})
export class InboundModule {}

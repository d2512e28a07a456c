import { Module } from '@nestjs/common';
import { WhatsAppInboundController } from './whatsapp-inbound.controller';
import { WhatsAppInboundService } from './whatsapp-inbound.service';

@Module({
  controllers: [WhatsAppInboundController],
  providers: [WhatsAppInboundService],
})
export class WhatsAppInboundModule {}

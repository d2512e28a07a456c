import { Module } from '@nestjs/common';
import { TenantResolver } from '../tenant-resolver';
import { WhatsAppInboundController } from './whatsapp-inbound.controller';
import { WhatsAppInboundRelay } from './whatsapp-inbound.relay';
import { WhatsAppInboundService } from './whatsapp-inbound.service';

@Module({
  controllers: [WhatsAppInboundController],
  providers: [WhatsAppInboundService, WhatsAppInboundRelay, TenantResolver],
})
export class WhatsAppInboundModule {}

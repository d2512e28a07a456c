import { Module } from '@nestjs/common';
import { TenantResolver } from '../tenant-resolver';
import { WhatsAppInboundController } from './whatsapp-inbound.controller';
import { WhatsAppInboundService } from './whatsapp-inbound.service';

@Module({
  controllers: [WhatsAppInboundController],
  providers: [WhatsAppInboundService, TenantResolver],
  exports: [WhatsAppInboundService],
})
export class WhatsAppInboundModule {}

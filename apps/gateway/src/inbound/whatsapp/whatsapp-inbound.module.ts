import { Module } from '@nestjs/common';
import { Clock } from '@app/server';
import { TenantResolver } from '../tenant-resolver';
import { WhatsAppInboundController } from './whatsapp-inbound.controller';
import { WhatsAppInboundService } from './whatsapp-inbound.service';

@Module({
  controllers: [WhatsAppInboundController],
  providers: [WhatsAppInboundService, TenantResolver, Clock],
  exports: [WhatsAppInboundService],
})
export class WhatsAppInboundModule {}

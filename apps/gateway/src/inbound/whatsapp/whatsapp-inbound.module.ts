import { Module } from '@nestjs/common';
import { Clock } from '@app/server';
import { FlowsModule } from '../../flows/flows.module';
import { TenantResolver } from '../tenant-resolver';
import { WhatsAppInboundController } from './whatsapp-inbound.controller';
import { WhatsAppInboundService } from './whatsapp-inbound.service';

@Module({
  imports: [FlowsModule],
  controllers: [WhatsAppInboundController],
  providers: [WhatsAppInboundService, TenantResolver, Clock],
  exports: [WhatsAppInboundService],
})
export class WhatsAppInboundModule {}

import { Module } from '@nestjs/common';
import { Clock } from '@app/server';
import { WaAppsModule } from '../wa-apps/wa-apps.module';
import { WhatsAppTemplatesChannel } from '../templates/whatsapp-templates.channel';
import { AppSignalsRpcController } from './app-signals.rpc.controller';
import { AppSignalsService } from './app-signals.service';

/** Live account signals of WhatsApp apps: relayed callbacks and the periodic pull of each number's state. */
@Module({
  imports: [WaAppsModule],
  controllers: [AppSignalsRpcController],
  providers: [AppSignalsService, WhatsAppTemplatesChannel, Clock],
  exports: [AppSignalsService],
})
export class AppSignalsModule {}

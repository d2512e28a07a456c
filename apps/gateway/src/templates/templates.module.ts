import { Module } from '@nestjs/common';
import { ChannelTemplatesController } from './templates.controller';
import { ChannelTemplatesService } from './templates.service';
import { whatsAppConnectorProvider } from './whatsapp-connector.provider';

/** WhatsApp template management served to the api over request/reply. */
@Module({
  controllers: [ChannelTemplatesController],
  providers: [ChannelTemplatesService, whatsAppConnectorProvider],
})
export class ChannelTemplatesModule {}

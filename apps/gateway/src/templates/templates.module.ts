import { Module } from '@nestjs/common';
import { TemplatesController } from './templates.controller';
import { TemplatesService } from './templates.service';
import { whatsAppConnectorProvider } from './whatsapp-connector.provider';

/** WhatsApp template management served to the api over request/reply. */
@Module({
  controllers: [TemplatesController],
  providers: [TemplatesService, whatsAppConnectorProvider],
})
export class TemplatesModule {}

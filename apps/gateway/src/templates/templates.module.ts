import { Module } from '@nestjs/common';
import { MediaModule } from '../media/media.module';
import { AccountsModule } from '../accounts/accounts.module';
import { ConnectionsModule } from '../connections/connections.module';
import { GatewayTemplatesController } from './gateway-templates.controller';
import { GatewayTemplatesService } from './gateway-templates.service';
import { ChannelTemplatesController } from './templates.controller';
import { ChannelTemplatesService } from './templates.service';
import { whatsAppConnectorProvider } from './whatsapp-connector.provider';

/**
 * WhatsApp template management served to the api over request/reply, and the accounts'
 * `/v1/templates` (bot templates beside the WhatsApp app's).
 */
@Module({
  imports: [AccountsModule, ConnectionsModule, MediaModule],
  controllers: [ChannelTemplatesController, GatewayTemplatesController],
  providers: [ChannelTemplatesService, GatewayTemplatesService, whatsAppConnectorProvider],
})
export class ChannelTemplatesModule {}

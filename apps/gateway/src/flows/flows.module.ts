import { Module } from '@nestjs/common';
import { Clock } from '@app/server';
import { AccountsModule } from '../accounts/accounts.module';
import { ConnectionsModule } from '../connections/connections.module';
import { whatsAppConnectorProvider } from '../templates/whatsapp-connector.provider';
import { FlowAnswers } from './flow-tokens';
import { FlowTokensRepository } from './flow-tokens.repository';
import { WhatsAppFlowsController } from './whatsapp-flows.controller';
import { WhatsAppFlowsService } from './whatsapp-flows.service';

/**
 * WhatsApp Flows: the linked app's Flows listed and published (`/v1/flows`), and the tokens of
 * Flow sends that join each submitted Flow to its message (docs/gateway.md#whatsapp-flows).
 */
@Module({
  imports: [AccountsModule, ConnectionsModule],
  controllers: [WhatsAppFlowsController],
  providers: [Clock, FlowTokensRepository, FlowAnswers, WhatsAppFlowsService, whatsAppConnectorProvider],
  exports: [FlowAnswers],
})
export class FlowsModule {}

import { Module } from '@nestjs/common';
import { Clock } from '@app/server';
import { AccountsModule } from '../accounts/accounts.module';
import { ConnectionsModule } from '../connections/connections.module';
import { ContactsModule } from '../contacts/contacts.module';
import { GatewayMessagesModule } from '../messages/gateway-messages.module';
import { MediaModule } from '../media/media.module';
import { whatsAppConnectorProvider } from '../templates/whatsapp-connector.provider';
import { ConversationReadMarkers } from './conversation-read-markers';
import { ConversationContacts } from './conversation-contacts';
import { ConversationsController } from './conversations.controller';
import { ConversationsRecorder } from './conversations.recorder';
import { ConversationsRepository } from './conversations.repository';
import { ConversationsService } from './conversations.service';
import { OutboundContents } from './outbound-content';
import { ServiceWindows } from './service-windows';

/** Conversations: every customer's thread, kept from the EVENTS stream, read and answered (docs/conversations.md). */
@Module({
  imports: [AccountsModule, ConnectionsModule, ContactsModule, GatewayMessagesModule, MediaModule],
  controllers: [ConversationsController],
  providers: [
    Clock,
    whatsAppConnectorProvider,
    ConversationReadMarkers,
    ConversationsRepository,
    ConversationContacts,
    ConversationsRecorder,
    ConversationsService,
    OutboundContents,
    ServiceWindows,
  ],
  exports: [ConversationsRecorder],
})
export class ConversationsModule {}

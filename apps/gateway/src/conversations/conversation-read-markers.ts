import { Injectable, Logger } from '@nestjs/common';
import { WhatsAppConnector } from '@app/channels';
import { BotChannels, CredentialsBox } from '../connections/bot-channels';
import { ConnectionsRepository } from '../connections/connections.repository';
import { ConversationRow } from './conversations.repository';

/**
 * What a conversation being read shows the customer, where the channel has it: on WhatsApp the last
 * message marked read with the typing indicator, on Telegram "typing..." in the chat. A courtesy:
 * a channel that refuses it is logged, never an error of the read.
 */
@Injectable()
export class ConversationReadMarkers {
  private readonly logger = new Logger('ConversationReadMarkers');

  constructor(
    private readonly whatsapp: WhatsAppConnector,
    private readonly connections: ConnectionsRepository,
    private readonly bots: BotChannels,
    private readonly credentials: CredentialsBox,
  ) {}

  async show(c: ConversationRow): Promise<void> {
    try {
      if (c.channel === 'whatsapp') {
        if (!c.sender || !c.last_inbound_provider_id) return;
        if (!(await this.whatsapp.markRead(c.sender, c.last_inbound_provider_id))) {
          this.logger.warn({ conversationId: c.id }, 'WhatsApp refused the read marker');
        }
        return;
      }
      const access = this.bots.of(c.channel);
      if (!access.typing) return;
      const connection = await this.connections.findById(c.connection_id);
      if (!connection?.credential || connection.state === 'disconnected') return;
      await access.typing(this.credentials.box.open(connection.credential), c.address);
    } catch (err) {
      this.logger.warn({ err: String(err), conversationId: c.id }, 'could not show the read marker');
    }
  }
}

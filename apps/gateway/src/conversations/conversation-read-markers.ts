import { Injectable, Logger } from '@nestjs/common';
import { WhatsAppConnector } from '@app/channels';
import { MessageReceivedData } from '@app/contracts';
import { BotChannels, CredentialsBox } from '../connections/bot-channels';
import { ConnectionsRepository } from '../connections/connections.repository';
import { ConversationRow } from './conversations.repository';

/**
 * Where a conversation's read markers go, from its customer's message: on WhatsApp the business
 * number written to, on MAX the dialog's chat id (MAX's user id is not a chat); null elsewhere.
 */
export function readMarkerTarget(channel: string, d: MessageReceivedData): string | null {
  if (channel === 'whatsapp') return d.connection_id;
  if (channel === 'max') return d.chat_id ?? null;
  return null;
}

/**
 * What a conversation being read shows the customer, where the channel has it: on WhatsApp the last
 * message marked read with the typing indicator, on Telegram "typing..." in the chat, on MAX the
 * dialog marked seen with "typing...". A courtesy: a channel that refuses it is logged, never an
 * error of the read.
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
      // A MAX dialog is its own chat, known from the customer's messages; a Telegram chat is the address.
      const chat = c.channel === 'max' ? c.sender : c.address;
      if (!access.typing || !chat) return;
      const connection = await this.connections.findById(c.connection_id);
      if (!connection?.credential || connection.state === 'disconnected') return;
      await access.typing(this.credentials.box.open(connection.credential), chat);
    } catch (err) {
      this.logger.warn({ err: String(err), conversationId: c.id }, 'could not show the read marker');
    }
  }
}

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  callbackEventId,
  ConversationContent,
  ConversationMessageCreatedData,
  CONVERSATION_CHANNELS,
  EventEnvelope,
  isUuid,
  MessageReceivedData,
  MessageStatusData,
  STATUS_OF_EVENT,
} from '@app/contracts';
import { sqlRows } from '@app/database';
import { EventPublisher } from '@app/messaging';
import { Clock } from '@app/server';
import { AccountsRepository } from '../accounts/accounts.repository';
import { ConversationContacts, recipientAddress, senderAddresses } from './conversation-contacts';
import {
  ConversationMessageRow,
  ConversationRow,
  ConversationsRepository,
  NewConversationMessage,
  UNKNOWN_CONTENT_TYPE,
} from './conversations.repository';

/** What an outbound message sent outside the conversation endpoints shows: its kind is not known here. */
const UNKNOWN_OUTBOUND: ConversationContent = { type: UNKNOWN_CONTENT_TYPE, text: null };

/** A connection an event belongs to, with its account. */
interface OwnerConnection {
  id: string;
  account_id: string;
}

/**
 * Keeps the conversations from the EVENTS stream (docs/conversations.md): each `message.received`
 * joins the conversation of its connection and sender (a new sender becomes a contact), each
 * outbound status adds its message to the conversation of its recipient's contact or moves its
 * status forward. Every step is idempotent: an event may come twice or out of order.
 */
@Injectable()
export class ConversationsRecorder {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly conversations: ConversationsRepository,
    private readonly contacts: ConversationContacts,
    private readonly accounts: AccountsRepository,
    private readonly publisher: EventPublisher,
    private readonly clock: Clock,
  ) {}

  /** Records what the event says of a conversation; other events are left alone. */
  async record(event: EventEnvelope): Promise<void> {
    if (!event.channel || !CONVERSATION_CHANNELS.includes(event.channel)) return;
    if (event.type === 'message.received') return this.inbound(event as EventEnvelope<never>);
    if (STATUS_OF_EVENT[event.type]) return this.outbound(event as EventEnvelope<never>);
  }

  private async inbound(event: EventEnvelope<MessageReceivedData>): Promise<void> {
    const d = event.data;
    if (!d?.from || !d.provider_message_id) return;
    const channel = event.channel!;
    const addresses = senderAddresses(channel, d.from, d.sender);
    if (!addresses.length) return;
    const previousId = d.sender?.previous_user_id;
    const previous = previousId && channel === 'whatsapp' ? { channel, kind: 'user_id', value: previousId } : null;
    for (const connection of await this.ownersOf(event, d.connection_id)) {
      const contact = await this.contacts.ofSender(connection.account_id, addresses, previous, d.profile_name ?? null);
      const conversation = await this.conversations.open(
        connection.account_id,
        connection.id,
        channel,
        contact.id,
        d.from,
        channel === 'whatsapp' ? d.connection_id : null,
      );
      const content: ConversationContent = d.content ?? { type: d.type, text: d.text ?? null };
      await this.add(conversation, event, {
        direction: 'in',
        providerMessageId: d.provider_message_id,
        messageId: null,
        status: 'RECEIVED',
        content,
        at: this.at(d.timestamp, event),
      });
    }
  }

  private async outbound(event: EventEnvelope<MessageStatusData>): Promise<void> {
    const d = event.data;
    const status = STATUS_OF_EVENT[event.type]!;
    if (!isUuid(d?.message_id)) return;
    const providerId = d.provider_message_id ?? null;
    if (await this.conversations.advance(d.message_id, status, providerId)) return;
    // Not in a conversation yet: its first status opens it, when the recipient is a contact.
    const address = d.recipient ? recipientAddress(event.channel!, d.recipient) : null;
    if (!address) return;
    for (const connection of await this.ownersOf(event, d.connection_id ?? null)) {
      const contact = await this.contacts.byAddress(connection.account_id, address);
      if (!contact) continue;
      const conversation = await this.conversations.open(
        connection.account_id,
        connection.id,
        event.channel!,
        contact.id,
        address.value,
      );
      await this.add(conversation, event, {
        direction: 'out',
        providerMessageId: providerId,
        messageId: d.message_id,
        status,
        content: UNKNOWN_OUTBOUND,
        at: this.at(d.timestamp, event),
      });
    }
  }

  /**
   * Records a message the account sent through a conversation, when the send is accepted: with its
   * content, before any status comes (a status that came first is kept: statuses only move forward).
   */
  async sent(conversation: ConversationRow, messageId: string, content: ConversationContent): Promise<void> {
    await this.add(conversation, null, {
      direction: 'out',
      providerMessageId: null,
      messageId,
      status: 'QUEUED',
      content,
      at: this.clock.now(),
    });
  }

  /** Adds the message and, the first time, publishes `conversation.message.created`. */
  private async add(conversation: ConversationRow, cause: EventEnvelope<unknown> | null, m: NewConversationMessage) {
    const row = await this.conversations.add(conversation, m);
    if (row) await this.publishCreated(conversation, row, cause);
  }

  private async publishCreated(
    conversation: ConversationRow,
    row: ConversationMessageRow,
    cause: EventEnvelope<unknown> | null,
  ): Promise<void> {
    const account = await this.accounts.findAccount(conversation.account_id);
    const data: ConversationMessageCreatedData = {
      conversation_id: conversation.id,
      id: row.id,
      contact_id: conversation.contact_id,
      connection_id: conversation.connection_id,
      direction: row.direction,
      message_id: row.message_id,
      provider_message_id: row.provider_message_id,
      status: row.status,
      content: row.content,
      timestamp: Math.floor(new Date(row.channel_timestamp).getTime() / 1000),
    };
    await this.publisher.publish({
      // The same message of the same conversation is the same event, however often it is recorded.
      id: callbackEventId('conversation.message.created', conversation.id, row.message_id ?? row.provider_message_id),
      type: 'conversation.message.created',
      created_at: cause?.created_at ?? this.clock.nowSeconds(),
      channel: conversation.channel,
      app_id: cause?.app_id ?? null,
      user_id: account?.userId ?? null,
      data: data as unknown as Record<string, unknown>,
    });
  }

  /**
   * The account connections an event belongs to: a bot's by the connection id its callback names,
   * WhatsApp's by the linked app; a queue's report names none, so the live connections of the
   * channel of the event's tenant (one per account) stand in, and the recipient's contact decides.
   */
  private async ownersOf(event: EventEnvelope<unknown>, connectionId: string | null): Promise<OwnerConnection[]> {
    if (event.channel === 'whatsapp') {
      if (event.app_id === null || event.app_id === undefined) return [];
      return sqlRows<OwnerConnection>(
        this.ds,
        `SELECT c.id, c.account_id FROM connections c JOIN accounts a ON a.id = c.account_id
          WHERE c.channel = 'whatsapp' AND c.app_id = $1 AND c.state <> 'disconnected'
            AND ($2::text IS NULL OR a.user_id::text = $2)`,
        [event.app_id, event.user_id ?? null],
      );
    }
    if (isUuid(connectionId)) {
      return sqlRows<OwnerConnection>(
        this.ds,
        `SELECT id, account_id FROM connections WHERE id = $1 AND channel = $2 AND state <> 'disconnected'`,
        [connectionId.toLowerCase(), event.channel],
      );
    }
    if (!isUuid(event.user_id)) return [];
    return sqlRows<OwnerConnection>(
      this.ds,
      `SELECT c.id, c.account_id FROM connections c JOIN accounts a ON a.id = c.account_id
        WHERE a.user_id = $1 AND c.channel = $2 AND c.state <> 'disconnected'`,
      [event.user_id, event.channel],
    );
  }

  /** The channel's time of a message, or the event's when the channel gave none. */
  private at(timestamp: number | undefined, event: EventEnvelope<unknown>): Date {
    const seconds = Number.isFinite(timestamp) && timestamp! > 0 ? timestamp! : event.created_at;
    return new Date(seconds * 1000);
  }
}

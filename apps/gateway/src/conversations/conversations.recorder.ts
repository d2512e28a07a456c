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
  MessageStatus,
  MessageStatusData,
  STATUS_OF_EVENT,
  statusRank,
} from '@app/contracts';
import { GroupCommit, sqlRows } from '@app/database';
import { EventPublisher } from '@app/messaging';
import { Clock } from '@app/server';
import { AccountsRepository } from '../accounts/accounts.repository';
import { ContactRow } from '../contacts/contacts.repository';
import { ConversationContacts, recipientAddress, senderAddresses, SenderOf } from './conversation-contacts';
import { readMarkerTarget } from './conversation-read-markers';
import {
  ConversationMessageRow,
  ConversationRow,
  ConversationsRepository,
  MESSAGE_COLUMNS,
  NewConversationMessage,
  NewThread,
  threadKey,
  UNKNOWN_CONTENT_TYPE,
} from './conversations.repository';

/** Events recorded in one batch, at most (a pull of the events consumer is smaller). */
const RECORD_BATCH = 500;

/** What an outbound message sent outside the conversation endpoints shows: its kind is not known here. */
const UNKNOWN_OUTBOUND: ConversationContent = { type: UNKNOWN_CONTENT_TYPE, text: null };

/**
 * The content a status event says its message sent (a campaign's message, a failover route's
 * attempt: the api made them), or null when it says none.
 */
const contentOfStatus = (d: MessageStatusData): ConversationContent | null =>
  d.content && typeof d.content === 'object' && typeof d.content.type === 'string' ? d.content : null;

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

  /** Events recorded at the same time (a pull's) go in one batch, batches one after another. */
  private readonly batches = new GroupCommit<EventEnvelope, Error | null>(
    (_, events) => this.recordBatch(events),
    RECORD_BATCH,
  );

  /**
   * Records what the event says of a conversation; other events are left alone. The events handed
   * in the same turn are recorded together (recordBatch); each promise settles with its own event.
   */
  async record(event: EventEnvelope): Promise<void> {
    if (!event.channel || !CONVERSATION_CHANNELS.includes(event.channel)) return;
    if (event.type !== 'message.received' && !STATUS_OF_EVENT[event.type]) return;
    const failed = await this.batches.submit('events', event);
    if (failed) throw failed;
  }

  /**
   * A batch in a few statements: its inbound messages with their contacts, conversations and rows
   * each in bulk, its statuses moved forward in one update (those of messages in no conversation
   * yet one by one, in order), the new messages' events published in parallel. Should the batch
   * fail as a whole, each event is recorded on its own, so that one bad event fails alone.
   */
  private async recordBatch(events: EventEnvelope[]): Promise<(Error | null)[]> {
    try {
      await this.inboundMany(events.filter((e) => e.type === 'message.received') as EventEnvelope<never>[]);
      await this.outboundMany(events.filter((e) => e.type !== 'message.received') as EventEnvelope<never>[]);
      return events.map(() => null);
    } catch {
      const outcomes: (Error | null)[] = [];
      for (const event of events) {
        try {
          await (event.type === 'message.received'
            ? this.inboundMany([event as EventEnvelope<never>])
            : this.outbound(event as EventEnvelope<never>));
          outcomes.push(null);
        } catch (err) {
          outcomes.push(err instanceof Error ? err : new Error(String(err)));
        }
      }
      return outcomes;
    }
  }

  private async inboundMany(events: EventEnvelope<MessageReceivedData>[]): Promise<void> {
    const found = events.flatMap((event) => {
      const d = event.data;
      if (!d?.from || !d.provider_message_id) return [];
      const channel = event.channel!;
      const addresses = senderAddresses(channel, d.from, d.sender);
      if (!addresses.length) return [];
      const previousId = d.sender?.previous_user_id;
      const previous = previousId && channel === 'whatsapp' ? { channel, kind: 'user_id', value: previousId } : null;
      return [{ event, d, channel, sender: { addresses, previous, name: d.profile_name ?? null } }];
    });
    const owners = await this.ownersOfMany(found.map((f) => ({ event: f.event, connectionId: f.d.connection_id })));
    // Each account's senders in one lookup; the same sender twice in the batch resolved once.
    const senders = new Map<string, Map<string, SenderOf>>();
    const senderKey = (s: SenderOf) => JSON.stringify([s.addresses, s.previous]);
    for (const [i, f] of found.entries()) {
      for (const c of owners[i]) {
        const of = senders.get(c.account_id) ?? new Map<string, SenderOf>();
        of.set(senderKey(f.sender), f.sender);
        senders.set(c.account_id, of);
      }
    }
    const contacts = new Map<string, ContactRow>();
    await Promise.all(
      [...senders].map(async ([accountId, of]) => {
        const rows = await this.contacts.ofSenders(accountId, [...of.values()]);
        [...of.keys()].forEach((key, i) => contacts.set(`${accountId}|${key}`, rows[i]));
      }),
    );
    const wanted = found.flatMap((f, i) =>
      owners[i].map((c) => {
        const contact = contacts.get(`${c.account_id}|${senderKey(f.sender)}`)!;
        const thread: NewThread = {
          accountId: c.account_id,
          connectionId: c.id,
          channel: f.channel,
          contactId: contact.id,
          address: f.d.from,
          sender: readMarkerTarget(f.channel, f.d),
        };
        return { f, thread };
      }),
    );
    const items = wanted.map(({ f, thread }) => ({
      thread,
      cause: f.event,
      m: {
        direction: 'in' as const,
        providerMessageId: f.d.provider_message_id,
        messageId: null,
        status: 'RECEIVED' as const,
        content: f.d.content ?? { type: f.d.type, text: f.d.text ?? null },
        at: this.at(f.d.timestamp, f.event),
      },
    }));
    const { conversations, rows: inserted } = await this.conversations.addInbound(items);
    const conversationOf = (t: NewThread) => conversations.get(threadKey(t.accountId, t.connectionId, t.contactId))!;
    const fresh = new Set(inserted.map((r) => `${r.conversation_id}|${r.provider_message_id}`));
    const repeats = items
      .map((it) => ({ conversation: conversationOf(it.thread), m: it.m }))
      .filter((it) => !fresh.has(`${it.conversation.id}|${it.m.providerMessageId}`));
    const rows = [...inserted, ...(await this.storedBefore(repeats))];
    const byId = new Map(items.map((it) => [conversationOf(it.thread).id, conversationOf(it.thread)]));
    // A repeat (same conversation and provider id) was left out: its first stands for it.
    const causes = new Map(items.map((it) => [`${conversationOf(it.thread).id}|${it.m.providerMessageId}`, it.cause]));
    await this.publishMany(
      rows.map((row) => ({
        conversation: byId.get(row.conversation_id)!,
        row,
        cause: causes.get(`${row.conversation_id}|${row.provider_message_id}`) ?? null,
      })),
    );
  }

  /**
   * The inbound messages of a batch that were stored before (a repeated update, or the redelivery
   * of a batch whose process died after storing and before publishing): their events go out again
   * with the same ids, so a subscriber and the media fetcher still see each message once, and a
   * message stored but never announced is announced.
   */
  private async storedBefore(
    items: { conversation: ConversationRow; m: NewConversationMessage }[],
  ): Promise<ConversationMessageRow[]> {
    const keys = new Map(items.map((it) => [`${it.conversation.id}|${it.m.providerMessageId}`, it]));
    if (!keys.size) return [];
    return sqlRows<ConversationMessageRow>(
      this.ds,
      `SELECT ${MESSAGE_COLUMNS} FROM conversation_messages
        WHERE direction = 'in' AND (conversation_id, provider_message_id) IN
              (SELECT * FROM unnest($1::uuid[], $2::text[]))`,
      [[...keys.values()].map((it) => it.conversation.id), [...keys.values()].map((it) => it.m.providerMessageId)],
    );
  }

  /** Statuses in one update; those of messages no conversation has yet go one by one, in order. */
  private async outboundMany(events: EventEnvelope<MessageStatusData>[]): Promise<void> {
    const valid = events.filter((e) => isUuid(e.data?.message_id));
    const highest = new Map<
      string,
      {
        messageId: string;
        status: MessageStatus;
        providerMessageId: string | null;
        content: ConversationContent | null;
      }
    >();
    for (const e of valid) {
      const status = STATUS_OF_EVENT[e.type]!;
      const seen = highest.get(e.data.message_id);
      const providerMessageId = seen?.providerMessageId ?? e.data.provider_message_id ?? null;
      const top = seen && statusRank(seen.status) >= statusRank(status) ? seen.status : status;
      const content = seen?.content ?? contentOfStatus(e.data);
      highest.set(e.data.message_id, { messageId: e.data.message_id, status: top, providerMessageId, content });
    }
    const advanced = await this.conversations.advanceMany([...highest.values()]);
    for (const e of valid) if (!advanced.has(e.data.message_id)) await this.outbound(e);
  }

  private async outbound(event: EventEnvelope<MessageStatusData>): Promise<void> {
    const d = event.data;
    const status = STATUS_OF_EVENT[event.type]!;
    if (!isUuid(d?.message_id)) return;
    const providerId = d.provider_message_id ?? null;
    const content = contentOfStatus(d);
    const advanced = await this.conversations.advanceMany([
      { messageId: d.message_id, status, providerMessageId: providerId, content },
    ]);
    if (advanced.size) return;
    // Not in a conversation yet: its first status opens it, when the recipient is a contact.
    const address = d.recipient ? recipientAddress(event.channel!, d.recipient) : null;
    if (!address) return;
    for (const connection of await this.ownersOf(event, d.connection_id ?? null)) {
      const contact = await this.contacts.byAddress(connection.account_id, address);
      if (!contact) continue;
      const thread: NewThread = {
        accountId: connection.account_id,
        connectionId: connection.id,
        channel: event.channel!,
        contactId: contact.id,
        address: address.value,
        sender: null,
      };
      await this.add(thread, event, {
        direction: 'out',
        providerMessageId: providerId,
        messageId: d.message_id,
        status,
        content: content ?? UNKNOWN_OUTBOUND,
        at: this.at(d.timestamp, event),
      });
    }
  }

  /**
   * Records a message the account sent, when the send is accepted, in the thread of its recipient's
   * contact: with its content, before any status comes (a status that came first is kept: statuses
   * only move forward; the content replaces the unknown one it recorded).
   */
  async sent(thread: NewThread, messageId: string, content: ConversationContent): Promise<void> {
    await this.add(thread, null, {
      direction: 'out',
      providerMessageId: null,
      messageId,
      status: 'QUEUED',
      content,
      at: this.clock.now(),
    });
  }

  /** publishCreated for many new messages at once, each account looked up once. */
  private async publishMany(
    created: { conversation: ConversationRow; row: ConversationMessageRow; cause: EventEnvelope<unknown> | null }[],
  ): Promise<void> {
    const ids = [...new Set(created.map((c) => c.conversation.account_id))];
    const accounts = new Map(await Promise.all(ids.map(async (id) => [id, await this.userOf(id)] as const)));
    await Promise.all(
      created.map((c) => this.publishCreated(c.conversation, c.row, c.cause, accounts.get(c.conversation.account_id))),
    );
  }

  /** The api user of an account (null: none). */
  private async userOf(accountId: string): Promise<string | null> {
    return (await this.accounts.findAccount(accountId))?.userId ?? null;
  }

  /** ownersOf for many events: the same owner question asked once. */
  private async ownersOfMany(
    asks: { event: EventEnvelope<unknown>; connectionId: string | null }[],
  ): Promise<OwnerConnection[][]> {
    const key = (a: (typeof asks)[number]) =>
      JSON.stringify([a.event.channel, a.event.app_id ?? null, a.event.user_id ?? null, a.connectionId]);
    const unique = new Map(asks.map((a) => [key(a), a]));
    const answers = new Map(
      await Promise.all([...unique].map(async ([k, a]) => [k, await this.ownersOf(a.event, a.connectionId)] as const)),
    );
    return asks.map((a) => answers.get(key(a))!);
  }

  /** Adds the message and, the first time, publishes `conversation.message.created`. */
  private async add(thread: NewThread, cause: EventEnvelope<unknown> | null, m: NewConversationMessage) {
    const { conversation, row } = await this.conversations.add(thread, m);
    if (row) await this.publishCreated(conversation, row, cause);
  }

  private async publishCreated(
    conversation: ConversationRow,
    row: ConversationMessageRow,
    cause: EventEnvelope<unknown> | null,
    userId?: string | null,
  ): Promise<void> {
    const user = userId === undefined ? await this.userOf(conversation.account_id) : userId;
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
      user_id: user,
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

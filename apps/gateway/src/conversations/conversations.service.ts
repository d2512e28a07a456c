import { Injectable } from '@nestjs/common';
import {
  callbackEventId,
  ConversationAssignedData,
  ConversationStatusChangedData,
  EventEnvelope,
  EventType,
  GatewaySendResult,
  mediaSourceOf,
  SendContent,
  SendMediaType,
  isInteractive,
} from '@app/contracts';
import { EventPublisher } from '@app/messaging';
import { Clock, NotFoundProblem, ProblemError, ValidationProblem } from '@app/server';
import { AuthenticatedAccount } from '../accounts/authenticated-account';
import { SendGatewayMessageDto } from '../messages/dto/send-gateway-message.dto';
import { AcceptedSends } from '../messages/accepted-sends';
import { GatewayMessagesService } from '../messages/gateway-messages.service';
import { MediaViews, MessageMediaView } from '../media/media-views';
import { ConversationReadMarkers } from './conversation-read-markers';
import { ConversationWindow, ServiceWindows } from './service-windows';
import {
  ConversationMessagePreview,
  ConversationMessageRow,
  ConversationRow,
  ConversationsRepository,
} from './conversations.repository';
import { ConversationReplyDto, UpdateConversationDto } from './dto/conversation-body.dto';
import { ListConversationMessagesDto, ListConversationsDto } from './dto/conversation-queries.dto';

const DEFAULT_LIMIT = 50;

/** 412 for a change made with a version (If-Match) the conversation has moved on from. */
export class ConversationVersionProblem extends ProblemError {
  constructor(current: number) {
    super(
      412,
      'precondition-failed',
      'Conversation changed',
      'The conversation changed since the version in If-Match: read it again and retry.',
      { version: current },
    );
  }
}

const seconds = (d: Date | string | null): number | null =>
  d === null ? null : Math.floor(new Date(d).getTime() / 1000);

/** A conversation message as answers show it. */
export interface ConversationMessageView extends ConversationMessagePreview {
  message_id: string | null;
  provider_message_id: string | null;
}

/** A conversation as answers show it. */
export interface ConversationView {
  id: string;
  contact: { id: string; name: string | null; address: string };
  channel: string;
  connection_id: string;
  status: string;
  assignee: string | null;
  labels: string[];
  unread_count: number;
  last_message: ConversationMessagePreview | null;
  last_message_at: number | null;
  window?: { open: boolean; expires_at: number | null } | null;
  version: number;
  created_at: number;
  updated_at: number;
}

/** A list cursor: the last row's exact updated_at and id. */
export const encodeListCursor = (at: string, id: string) => Buffer.from(`${at}|${id}`).toString('base64url');
function decodeCursor(cursor: string): { updatedAt: string; id: string } {
  const [updatedAt, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/.test(updatedAt ?? '') || !/^[0-9a-f-]{36}$/.test(id ?? '')) {
    throw new ValidationProblem([{ field: 'cursor', message: 'cursor must be the next_cursor of a previous page' }]);
  }
  return { updatedAt, id };
}

/** `/v1/conversations`: reading, working and answering the account's conversations (docs/conversations.md). */
@Injectable()
export class ConversationsService {
  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly markers: ConversationReadMarkers,
    private readonly messages: GatewayMessagesService,
    private readonly publisher: EventPublisher,
    private readonly clock: Clock,
    private readonly media: MediaViews,
    private readonly windows: ServiceWindows,
    private readonly acceptedSends: AcceptedSends,
  ) {}

  async list(
    account: AuthenticatedAccount,
    q: ListConversationsDto,
  ): Promise<{ data: ConversationView[]; next_cursor: string | null }> {
    const limit = q.limit === undefined ? DEFAULT_LIMIT : Number(q.limit);
    const page = await this.conversations.page(
      account.id,
      {
        status: q.status,
        assignee: q.assignee,
        channel: q.channel,
        label: q.label,
        unread: q.unread === undefined ? undefined : q.unread === 'true',
        updatedSince: q.updated_since === undefined ? undefined : new Date(Number(q.updated_since) * 1000),
      },
      q.cursor ? decodeCursor(q.cursor) : null,
      limit,
    );
    const last = page.rows[page.rows.length - 1];
    const windows = await this.windows.of(page.rows);
    return {
      data: page.rows.map((r) => this.view(r, windows.get(r.id))),
      next_cursor: page.more && last ? encodeListCursor(last.cursor_at, last.id) : null,
    };
  }

  /** The account's conversation; 404 for any other (another account's among them). */
  async get(account: AuthenticatedAccount, id: string): Promise<ConversationRow> {
    const row = /^[0-9a-f-]{36}$/i.test(id) ? await this.conversations.find(account.id, id.toLowerCase()) : null;
    if (!row) throw new NotFoundProblem('conversation');
    return row;
  }

  async messagesOf(
    account: AuthenticatedAccount,
    id: string,
    q: ListConversationMessagesDto,
  ): Promise<{ data: (ConversationMessageView & { media?: MessageMediaView })[]; next_cursor: string | null }> {
    if (q.before && q.after) {
      throw new ValidationProblem([{ field: 'after', message: 'give before or after, not both' }]);
    }
    const conversation = await this.get(account, id);
    const limit = q.limit === undefined ? DEFAULT_LIMIT : Number(q.limit);
    const page = await this.conversations.messages(conversation.id, { before: q.before, after: q.after }, limit);
    if (!page) {
      const field = q.before ? 'before' : 'after';
      throw new ValidationProblem([{ field, message: `${field} must be a message id of the conversation` }]);
    }
    const edge = q.after ? page.rows[page.rows.length - 1] : page.rows[0];
    // Inbound files: their state and a fresh signed link (docs/conversations.md#media).
    const data = await this.media.attach(account.id, page.rows.map(messageView));
    return { data, next_cursor: page.more && edge ? edge.id : null };
  }

  /** Applies a PATCH at `version` (If-Match; null: whatever the version) and publishes what changed. */
  async update(
    account: AuthenticatedAccount,
    id: string,
    version: number | null,
    dto: UpdateConversationDto,
  ): Promise<ConversationRow> {
    const current = await this.get(account, id);
    const changed = await this.conversations.change(account.id, current.id, version, dto);
    if (!changed) {
      const now = await this.get(account, id);
      throw new ConversationVersionProblem(now.version);
    }
    const { before, after } = changed;
    if (before.assignee !== after.assignee) {
      await this.publish(account, after, 'conversation.assigned', {
        conversation_id: after.id,
        contact_id: after.contact_id,
        assignee: after.assignee,
        previous_assignee: before.assignee,
        version: after.version,
      } satisfies ConversationAssignedData);
    }
    if (before.status !== after.status) {
      await this.publish(account, after, 'conversation.status_changed', {
        conversation_id: after.id,
        contact_id: after.contact_id,
        status: after.status,
        previous_status: before.status,
        version: after.version,
      } satisfies ConversationStatusChangedData);
    }
    return this.get(account, id);
  }

  /**
   * A reply on the channel the customer used, to the address they wrote from, through the one send
   * path (the Idempotency-Key repeat answers the same message), which records it in the
   * conversation before the answer.
   */
  async reply(
    account: AuthenticatedAccount,
    id: string,
    dto: ConversationReplyDto,
    idempotency: { key: string; hash: string } | null,
  ): Promise<GatewaySendResult & { conversation_id: string }> {
    const conversation = await this.get(account, id);
    const content = contentOf(dto);
    const send = Object.assign(new SendGatewayMessageDto(), {
      channel: conversation.channel,
      to: conversation.address,
      content,
    });
    const answer = await this.messages.send(account, send, idempotency);
    // The send path records it in this thread with its content (OutboundContents).
    await this.acceptedSends.settled(answer.id);
    return { ...answer, conversation_id: conversation.id };
  }

  /**
   * Marks the customer's messages read: the unread count back to 0, and on the channel the read
   * marker with typing (WhatsApp) or the typing action (Telegram).
   */
  async markRead(account: AuthenticatedAccount, id: string): Promise<ConversationRow> {
    const conversation = await this.get(account, id);
    await this.conversations.markRead(conversation.id);
    await this.markers.show(conversation);
    return this.get(account, id);
  }

  /** One conversation as answers show it, with its WhatsApp window. */
  async viewOf(r: ConversationRow): Promise<ConversationView> {
    return this.view(r, (await this.windows.of([r])).get(r.id));
  }

  /** A conversation as answers show it; a WhatsApp one with its window as the api's send check sees it. */
  private view(r: ConversationRow, window: ConversationWindow | null | undefined): ConversationView {
    return {
      id: r.id,
      contact: { id: r.contact_id, name: r.contact_name ?? null, address: r.address },
      channel: r.channel,
      connection_id: r.connection_id,
      status: r.status,
      assignee: r.assignee,
      labels: r.labels,
      unread_count: r.unread_count,
      last_message: r.last_message,
      last_message_at: seconds(r.last_message_at),
      ...(r.channel === 'whatsapp'
        ? { window: window === undefined ? { open: false, expires_at: null } : window }
        : {}),
      version: r.version,
      created_at: seconds(r.created_at)!,
      updated_at: seconds(r.updated_at)!,
    };
  }

  private async publish(
    account: AuthenticatedAccount,
    c: ConversationRow,
    type: EventType,
    data: ConversationAssignedData | ConversationStatusChangedData,
  ): Promise<void> {
    const event: EventEnvelope = {
      // One change of one version is one event.
      id: callbackEventId(type, c.id, c.version),
      type,
      created_at: this.clock.nowSeconds(),
      channel: c.channel,
      app_id: null,
      user_id: account.userId ?? null,
      data: data as unknown as Record<string, unknown>,
    };
    await this.publisher.publish(event);
  }
}

/** A reply's content as a send takes it (text when no type is given). */
function contentOf(dto: ConversationReplyDto): SendContent {
  if (isInteractive(dto as SendContent)) return dto as SendContent;
  if (dto.type === 'text') {
    return { type: 'text', text: dto.text ?? '', ...(dto.preview_url ? { preview_url: true } : {}) };
  }
  return {
    type: dto.type as SendMediaType,
    ...mediaSourceOf({ url: dto.url ?? '', media_id: dto.media_id }),
    ...(dto.caption ? { caption: dto.caption } : {}),
    ...(dto.file_name ? { file_name: dto.file_name } : {}),
  };
}

function messageView(m: ConversationMessageRow): ConversationMessageView {
  return {
    id: m.id,
    direction: m.direction,
    message_id: m.message_id,
    provider_message_id: m.provider_message_id,
    status: m.status,
    content: m.content,
    timestamp: seconds(m.channel_timestamp)!,
  };
}

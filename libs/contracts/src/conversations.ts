import type { Channel } from './channels';
import type { InboundContent } from './inbound-content';
import type { MessageStatus } from './events';

/** A conversation's state as an agent works it (docs/conversations.md). */
export const CONVERSATION_STATUSES = ['open', 'pending', 'closed'] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];

/** in: the customer wrote it; out: the account sent it. */
export type ConversationDirection = 'in' | 'out';

/**
 * What a conversation message holds: an inbound message's content as the channel gave it, or an
 * outbound message's kind (`template`, `text`, `image`, ...) with its text when the platform has it.
 */
export type ConversationContent = InboundContent | { type: string; text: string | null };

/** `conversation.message.created` data: a message joined a conversation (in or out). */
export interface ConversationMessageCreatedData {
  conversation_id: string;
  /** The conversation message's own id. */
  id: string;
  contact_id: string;
  connection_id: string;
  direction: ConversationDirection;
  /** Our message id, for outbound messages; null for inbound ones. */
  message_id: string | null;
  provider_message_id: string | null;
  /** Outbound: the delivery status when it joined; inbound: `RECEIVED`. */
  status: MessageStatus | 'RECEIVED';
  content: ConversationContent;
  /** Unix seconds: when the channel says the message was written or sent. */
  timestamp: number;
}

/** `conversation.assigned` data: the conversation's assignee changed (null: unassigned). */
export interface ConversationAssignedData {
  conversation_id: string;
  contact_id: string;
  assignee: string | null;
  previous_assignee: string | null;
  /** The conversation's version after the change. */
  version: number;
}

/** `conversation.status_changed` data: the conversation moved to another status. */
export interface ConversationStatusChangedData {
  conversation_id: string;
  contact_id: string;
  status: ConversationStatus;
  previous_status: ConversationStatus;
  version: number;
}

/** The channels whose inbound messages and sends are kept as conversations. */
export const CONVERSATION_CHANNELS: readonly Channel[] = ['whatsapp', 'telegram', 'max'];

import type { Channel } from './channels';
import type { RenderedAs, SendContent } from './content';
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

/** A template send as asked: the template's name, with its language, params and media URL. */
export interface SentTemplate {
  name: string;
  language: string | null;
  params: string[];
  media_url: string | null;
}

/**
 * What an outbound message shows in its conversation: a template as named (`type: "template"`,
 * with its language, params and media URL), a content as sent with its text or caption as `text`;
 * with `rendered_as` when the channel it went on is known. The gateway records its own sends with
 * it; the api carries it on the events of the messages it makes itself (a campaign's, a failover
 * route's later attempts).
 */
export function sentContent(send: {
  content: SendContent | null;
  template: SentTemplate | null;
  renderedAs: RenderedAs | null;
}): ConversationContent {
  const renderedAs = send.renderedAs ? { rendered_as: send.renderedAs } : {};
  if (!send.content) {
    const t = send.template!;
    const template = {
      type: 'template',
      text: null,
      template: {
        name: t.name,
        language: t.language,
        params: t.params,
        ...(t.media_url ? { media_url: t.media_url } : {}),
      },
      ...renderedAs,
    };
    return template;
  }
  const c = send.content;
  const text = 'text' in c ? c.text : 'caption' in c ? (c.caption ?? null) : null;
  const sent = { ...c, text, ...renderedAs };
  return sent;
}

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

import { Channel, MessageCategory, Priority } from './channels';

/** Kinds of message a sender can ask for (the spec's `type`). */
export const MESSAGE_KINDS = ['TEXT', 'IMAGE', 'VIDEO', 'DOCUMENT', 'AUDIO', 'REACTION', 'TEMPLATE'] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];

/**
 * The work item on an outbound stream: everything the queue needs to deliver one message. It is
 * the only place message content lives between intake and the provider (deleted on ack).
 */
export interface OutboundMessage {
  id: string;
  channel: Channel;
  priority: Priority;
  category: MessageCategory | null;
  user_id: string;
  app_id: number | null;
  /** The connection that sends it: a WhatsApp phone number id, a bot connection id, ... */
  sender: { connection_id: string; [key: string]: unknown };
  recipient: string;
  kind: MessageKind;
  /** The kind's data object as the client sent it (text, image, template, ...). */
  content: Record<string, unknown>;
  /** Unix milliseconds at intake. */
  queued_at: number;
}

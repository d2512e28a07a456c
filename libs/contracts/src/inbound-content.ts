/**
 * What a customer's inbound message holds, in one shape for every channel (`message.received`
 * `content`): the channels' own payloads differ, subscribers and conversations read this.
 */
export const INBOUND_CONTENT_TYPES = [
  'text',
  'image',
  'video',
  'audio',
  'voice',
  'document',
  'sticker',
  'location',
  'contacts',
  'reaction',
  'edit',
  'reply',
  'unsupported',
] as const;
export type InboundContentType = (typeof INBOUND_CONTENT_TYPES)[number];

/** handle: the channel's own reference to fetch the file later (WhatsApp media id, Telegram file_id, MAX attachment URL or token). */
export interface InboundMedia {
  handle: string;
  mime_type: string | null;
  file_name: string | null;
  size: number | null;
}

/** A press of a button, a choice from a list or a submitted WhatsApp Flow, on any channel. */
export interface InboundReply {
  kind: 'button' | 'list' | 'flow';
  id: string | null;
  title: string | null;
  payload: unknown;
  context_message_id: string | null;
}

/** The content of an inbound message: `type` says which of the optional parts is filled. */
export interface InboundContent {
  type: InboundContentType;
  /** The text, caption, edited text or a reply's title; null when there is none. */
  text: string | null;
  media?: InboundMedia;
  location?: { latitude: number; longitude: number; name: string | null; address: string | null };
  contacts?: { name: string; phones: string[] }[];
  reaction?: { emoji: string | null; target_provider_message_id: string };
  edit?: { target_provider_message_id: string };
  reply?: InboundReply;
}

/** Who wrote, as the channel named them: WhatsApp may give a phone, a business-scoped user id, or both. */
export interface InboundSender {
  phone: string | null;
  user_id: string | null;
  username: string | null;
  previous_user_id?: string | null;
}

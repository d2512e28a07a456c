import { Channel, MessageCategory, Priority } from './channels';

/** Kinds of message a sender can ask for (the API's `type`, docs/api-sending.md). */
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
  /** The connection that sends it: a WhatsApp phone_number_id (with its waba_id), a bot connection id, ... */
  sender: {
    connection_id: string;
    waba_id?: string | null;
    /**
     * Bot channels: the connection's token, sealed (AES-256-GCM) with the key the gateway and the
     * queue share, so the queue needs no database and the token is never in clear on the stream.
     */
    credential?: string | null;
  };
  recipient: string;
  kind: MessageKind;
  content: OutboundContent;
  /** Unix milliseconds at intake. */
  queued_at: number;
}

/** A template send, resolved by the intake against the stored template. */
export interface TemplateContent {
  name: string;
  language: string;
  /** IMAGE, VIDEO or DOCUMENT templates carry their media (template.url). */
  media?: { type: 'IMAGE' | 'VIDEO' | 'DOCUMENT'; url: string } | null;
  header_values?: string[];
  body_values?: string[];
  buttons?: { index: number; type: 'URL' | 'QUICK_REPLY'; values: string[] }[];
  /** The rendered body text, for channels without native templates (bot channels). */
  rendered_text?: string | null;
  /** The template with its values put in, part by part, for channels without native templates. */
  rendered?: RenderedTemplate | null;
  is_mm_lite?: boolean;
}

/** The kind's data object as the API names it. */
export type OutboundContent =
  | { text: { body: string } }
  | { image: { url: string; caption?: string } }
  | { video: { url: string; caption?: string } }
  | { document: { url: string; caption?: string } }
  | { audio: { url: string; is_voice?: boolean } }
  | { reaction: { emoji: string; message_id: string; provider_message_id?: string | null } }
  | { template: TemplateContent };

/** A template with its values put in, as a channel without native templates draws it. */
export interface RenderedTemplate {
  header: string | null;
  body: string;
  footer: string | null;
  /** URL buttons with their URL rendered; quick replies with the payload their press reports. */
  buttons: { type: 'URL' | 'QUICK_REPLY'; text: string; url?: string; payload?: string }[];
}

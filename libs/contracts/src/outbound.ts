import { Channel, MessageCategory, Priority } from './channels';
import type { InteractiveContent } from './content-interactive';
import type { ConversationContent } from './conversations';

/** Kinds of message a sender can ask for (the API's `type`, docs/api-sending.md). */
export const MESSAGE_KINDS = ['TEXT', 'IMAGE', 'VIDEO', 'DOCUMENT', 'AUDIO', 'REACTION', 'TEMPLATE'] as const;
/** A message's kind: one the API's `type` names, or INTERACTIVE (the gateway's interactive `content`). */
export type MessageKind = (typeof MESSAGE_KINDS)[number] | 'INTERACTIVE';

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
  /** The campaign the message belongs to; its sent and failed events carry it. */
  campaign_id?: string | null;
  /**
   * What the message shows in its recipient's conversation (sentContent), on the messages the api
   * makes itself (a campaign's, each attempt of a failover route): its sent and failed events carry
   * it as `content`, since the gateway never saw these sends.
   */
  thread_content?: ConversationContent | null;
}

/** A template send, resolved by the intake against the stored template. */
export interface TemplateContent {
  name: string;
  language: string;
  /** IMAGE, VIDEO or DOCUMENT templates carry their media (template.url). */
  media?: { type: 'IMAGE' | 'VIDEO' | 'DOCUMENT'; url: string } | null;
  header_values?: string[];
  body_values?: string[];
  /**
   * The button parameters by the template's button index: a URL button's variable, a quick reply's
   * payload, a COPY_CODE button's coupon code, a FLOW button's flow token (one value each but URL).
   */
  buttons?: { index: number; type: 'URL' | 'QUICK_REPLY' | 'COPY_CODE' | 'FLOW'; values: string[] }[];
  /** The rendered body text, for channels without native templates (bot channels). */
  rendered_text?: string | null;
  /** The template with its values put in, part by part, for channels without native templates. */
  rendered?: RenderedTemplate | null;
  is_mm_lite?: boolean;
}

/**
 * Where a media message's file is: a URL, or a media library file (docs/media.md) that the queue
 * sends by the sender connection's handle (`handle`, filled in at delivery; uploaded once).
 */
export type OutboundMediaSource =
  { url: string; media_id?: undefined; handle?: undefined } | { media_id: string; handle?: string; url?: undefined };

/** The kind's data object as the API names it. */
export type OutboundContent =
  | { text: { body: string; preview_url?: boolean } }
  | { image: OutboundMediaSource & { caption?: string } }
  | { video: OutboundMediaSource & { caption?: string } }
  | { document: OutboundMediaSource & { caption?: string; file_name?: string } }
  | { audio: OutboundMediaSource & { is_voice?: boolean; caption?: string } }
  | { reaction: { emoji: string; message_id: string; provider_message_id?: string | null } }
  | { template: TemplateContent }
  | { interactive: InteractiveContent };

/** A template with its values put in, as a channel without native templates draws it. */
export interface RenderedTemplate {
  header: string | null;
  body: string;
  footer: string | null;
  /** URL buttons with their URL rendered; quick replies with the payload their press reports. */
  buttons: { type: 'URL' | 'QUICK_REPLY'; text: string; url?: string; payload?: string }[];
}

/** The failure code of a message the queue gave up on and dead-lettered. */
export const DEAD_LETTERED = 'dead_lettered';

/**
 * What the dead letter stream keeps of an outbound message: who, where, how often and why, never
 * what (no text, media, template values or captions, no sealed credential). Fields the work item
 * did not have (an unreadable item) are null.
 */
export interface DeadLetteredOutbound {
  message_id: string | null;
  channel: string | null;
  priority: string | null;
  category: string | null;
  kind: string | null;
  user_id: string | null;
  app_id: number | null;
  connection_id: string | null;
  /** Unix milliseconds at intake. */
  queued_at: number | null;
  /** Deliveries made before giving up. */
  attempts: number;
  reason: string;
  /** Unix milliseconds. */
  dead_lettered_at: number;
}

/** The content-free record of a dead-lettered work item, from whatever could be read of it. */
export function deadLetteredOutbound(
  item: unknown,
  facts: { attempts: number; reason: string; at: number },
): DeadLetteredOutbound {
  const m = (item && typeof item === 'object' ? item : {}) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  const sender = (m.sender && typeof m.sender === 'object' ? m.sender : {}) as Record<string, unknown>;
  return {
    message_id: text(m.id),
    channel: text(m.channel),
    priority: text(m.priority),
    category: text(m.category),
    kind: text(m.kind),
    user_id: text(m.user_id),
    app_id: num(m.app_id),
    connection_id: text(sender.connection_id),
    queued_at: num(m.queued_at),
    attempts: facts.attempts,
    reason: facts.reason,
    dead_lettered_at: facts.at,
  };
}

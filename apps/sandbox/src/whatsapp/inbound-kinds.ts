import { sizeSuffix } from '../media/sandbox-media';
import { MessagesChangeValue, WebhookInboundMessage } from '@app/channels';

/** The kinds of inbound message `/_sandbox/whatsapp/inbound` emits, as the Cloud API's webhooks carry them. */
export const WHATSAPP_INBOUND_KINDS = [
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
  'button_reply',
  'list_reply',
  'flow',
  'quick_reply',
  'edit',
  'unsupported',
  'user_id_change',
] as const;
export type WhatsAppInboundKind = (typeof WHATSAPP_INBOUND_KINDS)[number];

/**
 * How Meta names the sender: its phone (`from`, `contacts[].wa_id`), its phone and business-scoped
 * user id (`from_user_id`, `contacts[].user_id`), or the id alone (no phone anywhere).
 */
export const WHATSAPP_SENDER_SHAPES = ['phone', 'phone_and_user_id', 'user_id'] as const;
export type WhatsAppSenderShape = (typeof WHATSAPP_SENDER_SHAPES)[number];

/** What the control endpoint was asked to emit. */
export interface InboundRequest {
  from: string;
  kind?: WhatsAppInboundKind;
  sender?: WhatsAppSenderShape;
  user_id?: string;
  username?: string;
  previous_user_id?: string;
  text?: string;
  /** Media kinds: the size of the file the media id serves. */
  media_size?: number;
  reaction?: { message_id: string; emoji: string };
  context_message_id?: string;
  /** `button_reply`, `list_reply`: the pressed button's or picked row's id. */
  reply_id?: string;
  profile_name?: string;
}

/** The sender's business-scoped user id: the one given, or one made from the phone. */
export const sandboxUserId = (input: InboundRequest) => input.user_id ?? `ZZ.${input.from}`;

function body(input: InboundRequest): Record<string, unknown> {
  const text = input.text;
  const media = (mime: string, extra: Record<string, unknown> = {}) => ({
    id: `media.${input.from}.${mime.replace(/\W+/g, '')}${sizeSuffix(input.media_size, '.')}`,
    mime_type: mime,
    sha256: 'sandbox',
    ...extra,
  });
  const caption = text === undefined ? {} : { caption: text };
  switch (input.kind ?? (input.reaction ? 'reaction' : 'text')) {
    case 'text':
      return { type: 'text', text: { body: text ?? '' } };
    case 'image':
      return { type: 'image', image: media('image/jpeg', caption) };
    case 'video':
      return { type: 'video', video: media('video/mp4', caption) };
    case 'audio':
      return { type: 'audio', audio: media('audio/mpeg', { voice: false }) };
    case 'voice':
      return { type: 'audio', audio: media('audio/ogg; codecs=opus', { voice: true }) };
    case 'document':
      return { type: 'document', document: media('application/pdf', { filename: 'file.pdf', ...caption }) };
    case 'sticker':
      return { type: 'sticker', sticker: media('image/webp', { animated: false }) };
    case 'location':
      return {
        type: 'location',
        location: { latitude: 55.7558, longitude: 37.6173, name: text ?? 'Sandbox place', address: 'Red Square 1' },
      };
    case 'contacts':
      return {
        type: 'contacts',
        contacts: [
          {
            name: { formatted_name: text ?? 'Sandbox Friend', first_name: 'Sandbox' },
            phones: [{ phone: '+79990009999', wa_id: '79990009999', type: 'CELL' }],
          },
        ],
      };
    case 'reaction':
      return {
        type: 'reaction',
        reaction: input.reaction ?? { message_id: input.context_message_id ?? '', emoji: '👍' },
      };
    case 'button_reply':
      return {
        type: 'interactive',
        interactive: { type: 'button_reply', button_reply: { id: input.reply_id ?? 'btn-1', title: text ?? 'Yes' } },
      };
    case 'list_reply':
      return {
        type: 'interactive',
        interactive: {
          type: 'list_reply',
          list_reply: { id: input.reply_id ?? 'row-1', title: text ?? 'Option 1', description: 'First' },
        },
      };
    case 'flow':
      return {
        type: 'interactive',
        interactive: {
          type: 'nfm_reply',
          nfm_reply: { name: 'flow', body: 'Sent', response_json: text ?? '{"flow_token":"sandbox","answer":"yes"}' },
        },
      };
    case 'quick_reply':
      return { type: 'button', button: { text: text ?? 'Stop promotions', payload: text ?? 'Stop promotions' } };
    case 'edit':
      return {
        type: 'edit',
        edit: {
          original_message_id: input.context_message_id ?? '',
          message: { type: 'text', text: { body: text ?? '' } },
        },
      };
    case 'unsupported':
      return { type: 'unsupported', errors: [{ code: 131051, title: 'Message type unknown' }] };
    case 'user_id_change':
      return {
        type: 'system',
        system: {
          type: 'user_changed_user_id',
          body: 'User changed their user id',
          previous_user_id: input.previous_user_id ?? `ZZ.old.${input.from}`,
          user_id: sandboxUserId(input),
        },
      };
  }
}

/**
 * One inbound message and its sender's contact entry, as Meta posts them: the kind's own object,
 * `context` when it answers or quotes a message, and the sender in the chosen shape.
 */
export function inboundWebhookContent(
  input: InboundRequest,
  id: string,
  timestamp: number,
): Required<Pick<MessagesChangeValue, 'contacts' | 'messages'>> {
  const shape = input.sender ?? 'phone';
  const withPhone = shape !== 'user_id';
  const withId = shape !== 'phone' || input.kind === 'user_id_change';
  const kind = body(input);
  const context =
    input.context_message_id && !['reaction', 'edit'].includes(String(kind.type))
      ? { context: { from: '15550001111', id: input.context_message_id } }
      : {};
  const message = {
    ...(withPhone ? { from: input.from } : {}),
    ...(withId ? { from_user_id: sandboxUserId(input) } : {}),
    id,
    timestamp: String(timestamp),
    ...context,
    ...kind,
  } as WebhookInboundMessage;
  const contact = {
    profile: {
      name: input.profile_name ?? 'Sandbox User',
      ...(input.username ? { username: input.username } : {}),
    },
    ...(withPhone ? { wa_id: input.from } : {}),
    ...(withId ? { user_id: sandboxUserId(input) } : {}),
  };
  return { contacts: [contact], messages: [message] };
}

import {
  callbackDataOf,
  isWhatsAppUserId,
  OutboundMediaSource,
  OutboundMessage,
  TemplateContent,
} from '@app/contracts';
import { GraphMessageBody, GraphTemplateMessage, GraphTemplateMessageComponent } from './graph.types';
import { toGraphInteractive } from './whatsapp-interactive.mapper';

/** A work item whose content does not fit its kind: no retry can send it. */
export class InvalidOutboundMessageError extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = 'InvalidOutboundMessageError';
  }
}

/** Which Cloud API endpoint sends a message: MM Lite marketing messages have their own. */
export function messagesEndpoint(msg: OutboundMessage): 'messages' | 'marketing_messages' {
  return 'template' in msg.content && msg.content.template.is_mm_lite ? 'marketing_messages' : 'messages';
}

/** Maps an outbound work item to the Graph API messages body for its kind. */
export function toGraphMessage(msg: OutboundMessage): GraphMessageBody {
  // Our message id (and its campaign's) rides along and comes back in the status webhooks, so callbacks name our message.
  // A business-scoped user id (US.13491208655302741918) is addressed as `recipient`, a phone as `to`.
  const base = {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    ...(isWhatsAppUserId(msg.recipient) ? { recipient: msg.recipient } : { to: msg.recipient }),
    biz_opaque_callback_data: callbackDataOf(msg.id, msg.campaign_id),
  } as const;
  const c = msg.content;
  switch (msg.kind) {
    case 'TEXT':
      if (!('text' in c)) break;
      return {
        ...base,
        type: 'text',
        text: { body: c.text.body, ...(c.text.preview_url ? { preview_url: true } : {}) },
      };
    case 'IMAGE':
      if (!('image' in c)) break;
      return { ...base, type: 'image', image: media(c.image, c.image.caption) };
    case 'VIDEO':
      if (!('video' in c)) break;
      return { ...base, type: 'video', video: media(c.video, c.video.caption) };
    case 'DOCUMENT':
      if (!('document' in c)) break;
      return {
        ...base,
        type: 'document',
        document: {
          ...media(c.document, c.document.caption),
          ...(c.document.file_name ? { filename: c.document.file_name } : {}),
        },
      };
    case 'AUDIO':
      if (!('audio' in c)) break;
      // Audio takes no caption; `voice` marks a voice note (OGG/OPUS), shown with a play icon.
      return { ...base, type: 'audio', audio: { ...fileOf(c.audio), ...(c.audio.is_voice ? { voice: true } : {}) } };
    case 'REACTION':
      if (!('reaction' in c)) break;
      // The channel knows messages by its own id; ours is only a fallback for inbound wamids.
      return {
        ...base,
        type: 'reaction',
        reaction: { message_id: c.reaction.provider_message_id || c.reaction.message_id, emoji: c.reaction.emoji },
      };
    case 'TEMPLATE':
      if (!('template' in c)) break;
      return { ...base, type: 'template', template: toGraphTemplateMessage(c.template) };
    case 'INTERACTIVE':
      if (!('interactive' in c)) break;
      return { ...base, type: 'interactive', interactive: toGraphInteractive(c.interactive) };
  }
  throw new InvalidOutboundMessageError(`message ${msg.id}: content does not match kind ${msg.kind}`);
}

/** The file of a media message: its URL as `link`, or a media library file by its uploaded media id. */
function fileOf(source: OutboundMediaSource): { link: string } | { id: string } {
  return source.url !== undefined ? { link: source.url } : { id: source.handle ?? '' };
}

function media(source: OutboundMediaSource, caption?: string) {
  return caption ? { ...fileOf(source), caption } : fileOf(source);
}

/** Template send: header (text values or the media link), body values, button values by index. */
export function toGraphTemplateMessage(t: TemplateContent): GraphTemplateMessage {
  const components: GraphTemplateMessageComponent[] = [];
  if (t.media) {
    const link = t.media.url;
    const parameter =
      t.media.type === 'IMAGE'
        ? { type: 'image' as const, image: { link } }
        : t.media.type === 'VIDEO'
          ? { type: 'video' as const, video: { link } }
          : { type: 'document' as const, document: { link } };
    components.push({ type: 'header', parameters: [parameter] });
  } else if (t.header_values?.length) {
    components.push({ type: 'header', parameters: t.header_values.map(textParameter) });
  }
  if (t.body_values?.length) {
    components.push({ type: 'body', parameters: t.body_values.map(textParameter) });
  }
  for (const button of t.buttons ?? []) {
    if (!button.values.length) continue;
    components.push(templateButton(button));
  }
  return {
    name: t.name,
    language: { code: t.language },
    ...(components.length ? { components } : {}),
  };
}

/** A button's parameters: a URL's variable, a quick reply's payload, a coupon code, a Flow's token. */
function templateButton(button: NonNullable<TemplateContent['buttons']>[number]): GraphTemplateMessageComponent {
  const index = String(button.index);
  switch (button.type) {
    case 'URL':
      return { type: 'button', sub_type: 'url', index, parameters: button.values.map(textParameter) };
    case 'COPY_CODE':
      return {
        type: 'button',
        sub_type: 'copy_code',
        index,
        parameters: [{ type: 'coupon_code', coupon_code: String(button.values[0]) }],
      };
    case 'FLOW':
      return {
        type: 'button',
        sub_type: 'flow',
        index,
        parameters: [{ type: 'action', action: { flow_token: String(button.values[0]) } }],
      };
    case 'QUICK_REPLY':
      return {
        type: 'button',
        sub_type: 'quick_reply',
        index,
        parameters: button.values.map((v) => ({ type: 'payload' as const, payload: String(v) })),
      };
  }
}

function textParameter(value: string | number) {
  return { type: 'text' as const, text: String(value) };
}

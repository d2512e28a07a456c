import type { MessageCategory } from './channels';
import {
  INTERACTIVE_CONTENT_TYPES,
  InteractiveContent,
  interactiveErrors,
  RenderedKind,
  renderedKindOf,
} from './content-interactive';
import type { MessageKind, OutboundContent, OutboundMediaSource } from './outbound';

/** Media kinds a send's `content` can carry, by URL. */
export const SEND_MEDIA_TYPES = ['image', 'video', 'audio', 'document'] as const;
export type SendMediaType = (typeof SEND_MEDIA_TYPES)[number];

/** Every kind of `content` a send takes: text, media, and the interactive kinds (content-interactive.ts). */
export const SEND_CONTENT_TYPES = ['text', ...SEND_MEDIA_TYPES, ...INTERACTIVE_CONTENT_TYPES] as const;
export type SendContentType = (typeof SEND_CONTENT_TYPES)[number];

/**
 * A free-form message, the same wherever the platform sends: text, media by an https URL or a
 * media library file (`media_id`, docs/media.md) with an optional caption, or an interactive kind (buttons, list, CTA link, location request, Flow). Sent
 * as a service message (inside WhatsApp's 24-hour window).
 */
export type SendContent =
  | { type: 'text'; text: string; preview_url?: boolean }
  | { type: SendMediaType; url: string; media_id?: undefined; caption?: string; file_name?: string }
  | { type: SendMediaType; media_id: string; url?: undefined; caption?: string; file_name?: string }
  | InteractiveContent;

/** What a channel was asked to send for a content: its type, or the kind a declared fallback sends. */
export type RenderedAs = 'text' | SendMediaType | RenderedKind;
export const RENDERED_AS = ['text', ...SEND_MEDIA_TYPES, ...INTERACTIVE_CONTENT_TYPES] as const;

/** What `channel` renders for `content` (the send's `rendered_as`, docs/gateway.md#content-kinds). */
export function renderedAs(channel: string, content: SendContent): RenderedAs {
  return isInteractive(content) ? renderedKindOf(channel, content) : content.type;
}

/** Whether a content is one of the interactive kinds. */
export function isInteractive(content: SendContent): content is InteractiveContent {
  return (INTERACTIVE_CONTENT_TYPES as readonly string[]).includes(content.type);
}

/** The longest text and caption a channel takes, in characters. */
export interface ContentLimits {
  text: number;
  caption: number;
  /** Media kinds that take no caption on the channel. */
  uncaptioned: readonly SendMediaType[];
}

/**
 * Each channel's documented limits: WhatsApp's text body 4,096 and media caption 1,024 (audio takes
 * none); Telegram's message 4,096 and caption 1,024; MAX's message text, which is also the caption
 * of its attachments, 4,000.
 */
export const CONTENT_LIMITS: Readonly<Record<string, ContentLimits>> = {
  whatsapp: { text: 4096, caption: 1024, uncaptioned: ['audio'] },
  telegram: { text: 4096, caption: 1024, uncaptioned: [] },
  max: { text: 4000, caption: 4000, uncaptioned: [] },
};

/** Fields of `content` that only some of its types take. */
const FIELDS_OF: Record<string, readonly SendContentType[]> = {
  text: ['text', ...INTERACTIVE_CONTENT_TYPES],
  preview_url: ['text'],
  url: SEND_MEDIA_TYPES,
  media_id: SEND_MEDIA_TYPES,
  caption: SEND_MEDIA_TYPES,
  file_name: ['document'],
  buttons: ['buttons'],
  header: ['buttons'],
  button: ['list', 'cta_url'],
  sections: ['list'],
  flow_id: ['flow'],
  cta: ['flow'],
  screen: ['flow'],
  data: ['flow'],
  fallback_url: ['flow'],
  flow_token: ['flow'],
};

/**
 * The field errors of a content on a channel: a field its type does not take, or a text or caption
 * longer than the channel's limit (`content.text`, `content.caption`); empty when it fits.
 */
export function contentErrors(channel: string, content: SendContent): { field: string; message: string }[] {
  const given = content as Record<string, unknown>;
  const misplaced = Object.keys(FIELDS_OF)
    .filter((f) => given[f] !== undefined && !FIELDS_OF[f].includes(content.type))
    .map((f) => ({ field: `content.${f}`, message: `content.${f} goes with type ${FIELDS_OF[f].join(' or ')}` }));
  if (misplaced.length) return misplaced;
  const media = mediaSourceErrors(content);
  if (media.length) return media;
  const limits = CONTENT_LIMITS[channel];
  if (!limits) return [{ field: 'content', message: `content cannot be sent on ${channel}` }];
  if (isInteractive(content)) return interactiveErrors(channel, content);
  if (content.type === 'text') {
    return [...content.text].length > limits.text
      ? [{ field: 'content.text', message: `content.text is longer than ${channel}'s ${limits.text} characters` }]
      : [];
  }
  if (content.caption === undefined || content.caption === '') return [];
  if (limits.uncaptioned.includes(content.type)) {
    return [{ field: 'content.caption', message: `${channel} sends ${content.type} without a caption` }];
  }
  return [...content.caption].length > limits.caption
    ? [
        {
          field: 'content.caption',
          message: `content.caption is longer than ${channel}'s ${limits.caption} characters`,
        },
      ]
    : [];
}

/** A media content takes exactly one of `url` and `media_id`. */
function mediaSourceErrors(content: SendContent): { field: string; message: string }[] {
  if (!(SEND_MEDIA_TYPES as readonly string[]).includes(content.type)) return [];
  const given = content as { url?: unknown; media_id?: unknown };
  if (given.url !== undefined && given.media_id !== undefined)
    return [{ field: 'content.media_id', message: 'content takes url or media_id, not both' }];
  if (given.url === undefined && given.media_id === undefined)
    return [{ field: 'content.url', message: 'content.url or content.media_id is required' }];
  return [];
}

/** The file of a media content: its URL, or its media library id (resolved to a channel handle when sent). */
export function mediaSourceOf(content: { url?: string; media_id?: string }): OutboundMediaSource {
  return content.media_id !== undefined ? { media_id: content.media_id } : { url: content.url! };
}

/** A content send's message kind and outbound content (the work item's), always in the SERVICE category. */
export function outboundOfContent(content: SendContent): {
  kind: MessageKind;
  category: MessageCategory;
  content: OutboundContent;
} {
  const category: MessageCategory = 'SERVICE';
  if (isInteractive(content)) return { kind: 'INTERACTIVE', category, content: { interactive: content } };
  switch (content.type) {
    case 'text':
      return {
        kind: 'TEXT',
        category,
        content: { text: { body: content.text, ...(content.preview_url ? { preview_url: true } : {}) } },
      };
    case 'audio':
      return {
        kind: 'AUDIO',
        category,
        content: { audio: { ...mediaSourceOf(content), ...(content.caption ? { caption: content.caption } : {}) } },
      };
    default: {
      const media = { ...mediaSourceOf(content), ...(content.caption ? { caption: content.caption } : {}) };
      if (content.type === 'image') return { kind: 'IMAGE', category, content: { image: media } };
      if (content.type === 'video') return { kind: 'VIDEO', category, content: { video: media } };
      const named = content.file_name ? { file_name: content.file_name } : {};
      return { kind: 'DOCUMENT', category, content: { document: { ...media, ...named } } };
    }
  }
}

/** An approved template named by a `window-closed` problem: one that could be sent instead. */
export interface WindowClosedTemplate {
  name: string;
  language: string;
  category: string;
}

/** The slug of the problem a WhatsApp content send gets when the customer-service window is closed. */
export const WINDOW_CLOSED = 'window-closed';
/** Most templates a `window-closed` problem names. */
export const WINDOW_CLOSED_TEMPLATES_MAX = 20;

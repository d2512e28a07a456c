import type { Schemas } from '../api/client';
import { unixOf } from '../components/format';
import { CHANNELS } from './channels';

type Definition = Schemas['CampaignDefinitionDto'];
type Content = Schemas['SendContentDto'];

/** What a campaign sends: a template, or a message of its own (text, an image of the media library, buttons). */
export const MESSAGE_KINDS = ['template', 'text', 'image', 'buttons'] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];
/** Reply buttons a message may carry (the gateway's limit for type buttons). */
export const BUTTON_SLOTS = [1, 2, 3] as const;
/** Telegram's limit on a button's callback data, the tightest of the channels. */
const BUTTON_ID_BYTES = 64;

const utf8Length = (s: string) => new TextEncoder().encode(s).length;

/** A button's reply id from its label when none is given: its words joined by `_`, within 64 bytes. */
export function buttonIdOf(title: string, slot: number): string {
  let id = title
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '_')
    .replace(/^_+|_+$/g, '');
  while (utf8Length(id) > BUTTON_ID_BYTES) id = id.slice(0, -1);
  return id || `button_${slot}`;
}

/** The content a builder form describes for its message kind (undefined for a template campaign). */
function contentOf(kind: MessageKind, str: (name: string) => string): Content | undefined {
  if (kind === 'text') return { type: 'text', text: str('content_text') };
  if (kind === 'image') {
    const image: Content = { type: 'image', media_id: str('content_media_id') };
    if (str('content_caption')) image.caption = str('content_caption');
    return image;
  }
  if (kind === 'buttons') {
    const buttons = BUTTON_SLOTS.filter((n) => str(`button_title_${n}`)).map((n) => ({
      id: str(`button_id_${n}`) || buttonIdOf(str(`button_title_${n}`), n),
      title: str(`button_title_${n}`),
    }));
    return { type: 'buttons', text: str('content_text'), buttons };
  }
  return undefined;
}

/**
 * The definition a builder form describes (empty fields left out, so the gateway's defaults apply):
 * a template with its language and params, or a content with an optional fallback template (to which
 * the language and params then belong) for WhatsApp recipients whose window is closed.
 */
export function definitionOf(form: FormData): Definition {
  const str = (name: string) => String(form.get(name) ?? '').trim();
  const audienceKind = str('audience_kind');
  const audienceValue = str('audience_value');
  const audience: Definition['audience'] =
    audienceKind === 'contact_ids'
      ? { contact_ids: audienceValue.split(/[\s,]+/).filter(Boolean) }
      : audienceKind === 'filter'
        ? {
            filter: {
              lists: audienceValue
                .split(',')
                .map((s) => s.trim())
                .filter(Boolean),
            },
          }
        : { list: audienceValue };
  const kind = (MESSAGE_KINDS as readonly string[]).includes(str('message_kind'))
    ? (str('message_kind') as MessageKind)
    : 'template';
  const content = contentOf(kind, str);
  const def: Definition = {
    name: str('name'),
    audience,
    channels: CHANNELS.filter((c) => form.get(`channel_${c}`) === 'on'),
  };
  if (content) {
    def.content = content;
    if (str('fallback_template')) def.fallback_template = str('fallback_template');
  } else {
    def.template = str('template');
  }
  // The template's language and params: the campaign's template, or a content campaign's fallback.
  if (!content || def.fallback_template) {
    if (str('language')) def.language = str('language');
    const params = str('params')
      .split('\n')
      .map((p) => p.trim())
      .filter(Boolean);
    if (params.length) def.params = params;
  }
  const start = unixOf(str('start_at'));
  const end = unixOf(str('end_by'));
  if (start !== undefined || end !== undefined) def.schedule = { start_at: start, end_by: end };
  if (str('quiet_start') && str('quiet_end')) def.quiet_hours = { start: str('quiet_start'), end: str('quiet_end') };
  if (str('rate')) def.rate = Number(str('rate'));
  if (str('budget')) def.budget = Number(str('budget'));
  return def;
}

/** A campaign's message in a line: the template (and its language), or the content's kind and text. */
export function messageSummary(c: {
  template?: string | null;
  language?: string | null;
  content?: Content | null;
}): string {
  const lang = c.language ? ` (${c.language})` : '';
  if (!c.content) return `${c.template ?? '—'}${lang}`;
  const body = c.content.text ?? c.content.caption ?? c.content.media_id ?? c.content.url ?? '';
  const buttons = c.content.buttons?.length ? ` [${c.content.buttons.map((b) => b.title).join(' | ')}]` : '';
  return `${c.content.type}: ${body}${buttons}`;
}

/** A content campaign's fallback template in a line (with its language), or a dash without one. */
export function fallbackSummary(c: { fallback_template?: string | null; language?: string | null }): string {
  if (!c.fallback_template) return '—';
  return `${c.fallback_template}${c.language ? ` (${c.language})` : ''}`;
}

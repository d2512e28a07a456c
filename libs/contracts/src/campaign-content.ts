import { contentErrors, SEND_CONTENT_TYPES, SEND_MEDIA_TYPES } from './content';
import type { SendContent } from './content';

type FieldErrors = { field: string; message: string }[];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const absent = (v: unknown): v is null | undefined => v === undefined || v === null;

/** Content kinds a campaign does not send: a Flow's token is made for each send. */
const NOT_IN_CAMPAIGNS = ['flow'];

/** The fields of a content campaign that only go with a template (here: its fallback template). */
const TEMPLATE_ONLY = ['language', 'params', 'media_url'] as const;

/**
 * A content a campaign (or a content campaign's variant) sends, on each of its channels: its type,
 * and the limits `POST /v1/messages` names (`content.text`, `content.caption`, ...), each error
 * named `content` or `content.<field>`.
 */
export function campaignSendContentErrors(content: unknown, channels: readonly string[]): FieldErrors {
  if (
    !isObject(content) ||
    !(SEND_CONTENT_TYPES as readonly unknown[]).includes(content.type) ||
    NOT_IN_CAMPAIGNS.includes(content.type as string)
  ) {
    const kinds = SEND_CONTENT_TYPES.filter((t) => !NOT_IN_CAMPAIGNS.includes(t)).join(', ');
    return [{ field: 'content.type', message: `content must be an object whose type is one of ${kinds}` }];
  }
  const errors: FieldErrors = [];
  for (const f of ['text', 'caption'] as const) {
    if (!absent(content[f]) && typeof content[f] !== 'string') {
      errors.push({ field: `content.${f}`, message: `content.${f} must be a string` });
    }
  }
  // A media content sends a URL or a media library file (docs/media.md); both or neither is named below.
  if ((SEND_MEDIA_TYPES as readonly unknown[]).includes(content.type)) {
    if (content.media_id !== undefined) {
      if (typeof content.media_id !== 'string')
        errors.push({ field: 'content.media_id', message: 'content.media_id must be a media library id' });
    } else if (typeof content.url !== 'string') {
      errors.push({ field: 'content.url', message: 'content.url must be an https URL' });
    }
  }
  if (errors.length) return errors;
  const seen = new Set<string>();
  for (const channel of channels) {
    for (const e of contentErrors(channel, content as unknown as SendContent)) {
      if (!seen.has(e.field)) errors.push(e);
      seen.add(e.field);
    }
  }
  return errors;
}

/**
 * What a campaign sends (docs/campaigns.md#content-campaigns): a `template`, or a `content` sent as
 * it is, exclusive, one of them required. A content must fit every channel of the campaign, by the
 * limits `POST /v1/messages` names (`content.text`, `content.caption`, ...); `fallback_template`
 * only goes with content, and `language`, `params` and `media_url` then belong to it (refused
 * without it). A content's own shape (its fields and their types) is checked by the gateway's
 * validator of `content` before this. `template` itself is checked by the definition's rule.
 */
export function campaignContentErrors(
  d: Record<string, unknown>,
  channels: readonly string[],
  isTemplateName: (v: unknown) => boolean,
): FieldErrors {
  const hasTemplate = !absent(d.template);
  if (hasTemplate && !absent(d.content)) {
    return [{ field: 'content', message: 'a campaign sends template or content, not both' }];
  }
  if (!hasTemplate && absent(d.content)) return [{ field: 'template', message: 'template or content is required' }];
  if (hasTemplate) {
    return absent(d.fallback_template)
      ? []
      : [{ field: 'fallback_template', message: 'fallback_template goes with content' }];
  }
  const errors = campaignSendContentErrors(d.content, channels);
  const fallback = d.fallback_template;
  if (absent(fallback)) {
    for (const f of TEMPLATE_ONLY) {
      const given = f === 'params' ? Array.isArray(d.params) && d.params.length > 0 : !absent(d[f]);
      if (given)
        errors.push({ field: f, message: `${f} goes with a template: give fallback_template, or leave it out` });
    }
  } else if (!isTemplateName(fallback)) {
    errors.push({
      field: 'fallback_template',
      message: 'fallback_template must be a template name (lowercase letters, digits, _)',
    });
  }
  return errors;
}

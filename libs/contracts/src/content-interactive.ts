/** The interactive kinds of a send's `content`: the customer answers by pressing, picking or filling in. */
export const INTERACTIVE_CONTENT_TYPES = ['buttons', 'list', 'cta_url', 'location_request', 'flow'] as const;
export type InteractiveContentType = (typeof INTERACTIVE_CONTENT_TYPES)[number];

/** A reply button: `id` comes back in the press (`content.reply.id` of `message.received`). */
export interface ContentButton {
  id: string;
  title: string;
}

/** A media header of a `buttons` message, by https URL. */
export interface ContentHeader {
  type: 'image' | 'video' | 'document';
  url: string;
}

export interface ContentListRow {
  id: string;
  title: string;
  description?: string;
}

export interface ContentListSection {
  title: string;
  rows: ContentListRow[];
}

/**
 * An interactive message. A `flow` carries the `flow_token` the platform made for it (never given
 * by the sender): WhatsApp hands it back with the submitted Flow.
 */
export type InteractiveContent =
  | { type: 'buttons'; text: string; buttons: ContentButton[]; header?: ContentHeader }
  | { type: 'list'; text: string; button: string; sections: ContentListSection[] }
  | { type: 'cta_url'; text: string; button: { title: string; url: string } }
  | { type: 'location_request'; text: string }
  | {
      type: 'flow';
      text: string;
      flow_id: string;
      cta: string;
      screen?: string;
      data?: Record<string, unknown>;
      /** The Flow's web form, where a channel without Flows sends the customer instead. */
      fallback_url?: string;
      flow_token?: string;
    };

/** Most reply buttons of a `buttons` message, and most rows of a `list` (all sections together). */
export const MAX_CONTENT_BUTTONS = 3;
export const MAX_CONTENT_ROWS = 10;

/** One channel's limits on the interactive kinds: characters, except `callback_bytes` (UTF-8 bytes). */
export interface InteractiveLimits {
  /** The message text (with a media header: the channel's caption limit instead). */
  body: number;
  /** A media header's text on a channel that sends it as a caption. */
  caption: number;
  /** A button's label, a list's button label, a CTA's label. */
  button_title: number;
  /** A list row's title, and a section's. */
  row_title: number;
  row_description: number;
  /** A reply button's or a row's `id`, as the channel carries it back. */
  id_length: number;
  /** Bytes of an `id` as the channel's callback data; null where only `id_length` counts. */
  callback_bytes: number | null;
}

/**
 * Each channel's documented limits. WhatsApp: body 1,024, button title 20, row title 24 (and
 * section title 24), row description 72, button id 256 and row id 200 (the lower counts here).
 * Telegram: text 4,096, caption 1,024, callback data 64 bytes. MAX: text 4,000, button text 128,
 * callback payload 1,024 bytes.
 */
export const INTERACTIVE_LIMITS: Readonly<Record<string, InteractiveLimits>> = {
  whatsapp: {
    body: 1024,
    caption: 1024,
    button_title: 20,
    row_title: 24,
    row_description: 72,
    id_length: 200,
    callback_bytes: null,
  },
  telegram: {
    body: 4096,
    caption: 1024,
    button_title: 128,
    row_title: 128,
    row_description: 128,
    id_length: 64,
    callback_bytes: 64,
  },
  max: {
    body: 4000,
    caption: 4000,
    button_title: 128,
    row_title: 128,
    row_description: 128,
    id_length: 1024,
    callback_bytes: 1024,
  },
};

/** What a channel is asked to send for a kind: the kind itself, or a declared fallback. */
export type RenderedKind = 'text' | 'buttons' | 'list' | 'cta_url' | 'location_request' | 'flow';

/**
 * How each channel renders each interactive kind, native or by a declared fallback (docs/gateway.md#content-kinds):
 * a list on Telegram and MAX is one callback button per row; a Flow on Telegram and MAX is a link
 * button to its web form (`fallback_url`), or, without one, its text alone.
 */
export const INTERACTIVE_RENDERING: Readonly<
  Record<string, Record<InteractiveContentType, { as: RenderedKind; without_url?: RenderedKind }>>
> = {
  whatsapp: {
    buttons: { as: 'buttons' },
    list: { as: 'list' },
    cta_url: { as: 'cta_url' },
    location_request: { as: 'location_request' },
    flow: { as: 'flow' },
  },
  telegram: {
    buttons: { as: 'buttons' },
    list: { as: 'buttons' },
    cta_url: { as: 'cta_url' },
    location_request: { as: 'location_request' },
    flow: { as: 'cta_url', without_url: 'text' },
  },
  max: {
    buttons: { as: 'buttons' },
    list: { as: 'buttons' },
    cta_url: { as: 'cta_url' },
    location_request: { as: 'location_request' },
    flow: { as: 'cta_url', without_url: 'text' },
  },
};

/** What a channel is asked to send for an interactive content: the kind, or its declared fallback. */
export function renderedKindOf(channel: string, content: InteractiveContent): RenderedKind {
  const rule = INTERACTIVE_RENDERING[channel]?.[content.type];
  if (!rule) return content.type;
  if (content.type === 'flow' && !content.fallback_url && rule.without_url) return rule.without_url;
  return rule.as;
}

/** The label of the button that asks for the customer's location where the channel needs one. */
export const LOCATION_BUTTON_TITLE = 'Send location';

type FieldError = { field: string; message: string };

/**
 * The field errors of an interactive content on a channel, each naming its field
 * (`content.buttons.1.title`): lengths against the channel's limits, ids the channel cannot carry
 * back (bytes of callback data), repeated ids, and the most buttons and rows.
 */
export function interactiveErrors(channel: string, content: InteractiveContent): FieldError[] {
  const limits = INTERACTIVE_LIMITS[channel];
  if (!limits) return [{ field: 'content', message: `content.type ${content.type} cannot be sent on ${channel}` }];
  const errors: FieldError[] = [];
  const chars = (field: string, value: string | undefined, max: number) => {
    if (value !== undefined && [...value].length > max)
      errors.push({ field, message: `${field} is longer than ${channel}'s ${max} characters` });
  };
  const id = (field: string, value: string) => {
    chars(field, value, limits.id_length);
    if (limits.callback_bytes !== null && Buffer.byteLength(value) > limits.callback_bytes)
      errors.push({
        field,
        message: `${field} is longer than ${channel}'s ${limits.callback_bytes} bytes of callback data`,
      });
  };
  const unique = (field: string, ids: string[]) => {
    const repeated = ids.find((v, i) => ids.indexOf(v) !== i);
    if (repeated !== undefined) errors.push({ field, message: `${field} repeats the id ${repeated}` });
  };
  const bodyMax = content.type === 'buttons' && content.header ? limits.caption : limits.body;
  chars('content.text', content.text, bodyMax);
  switch (content.type) {
    case 'buttons':
      if (content.buttons.length > MAX_CONTENT_BUTTONS)
        errors.push({ field: 'content.buttons', message: `content.buttons holds at most ${MAX_CONTENT_BUTTONS}` });
      content.buttons.forEach((b, i) => {
        id(`content.buttons.${i}.id`, b.id);
        chars(`content.buttons.${i}.title`, b.title, limits.button_title);
      });
      unique(
        'content.buttons',
        content.buttons.map((b) => b.id),
      );
      break;
    case 'list': {
      chars('content.button', content.button, limits.button_title);
      const rows = content.sections.flatMap((s) => s.rows);
      if (rows.length > MAX_CONTENT_ROWS)
        errors.push({
          field: 'content.sections',
          message: `content.sections hold at most ${MAX_CONTENT_ROWS} rows in all`,
        });
      content.sections.forEach((s, i) => {
        chars(`content.sections.${i}.title`, s.title, limits.row_title);
        s.rows.forEach((r, j) => {
          const at = `content.sections.${i}.rows.${j}`;
          id(`${at}.id`, r.id);
          chars(`${at}.title`, r.title, limits.row_title);
          chars(`${at}.description`, r.description, limits.row_description);
        });
      });
      unique(
        'content.sections',
        rows.map((r) => r.id),
      );
      break;
    }
    case 'cta_url':
      chars('content.button.title', content.button.title, limits.button_title);
      break;
    case 'flow':
      chars('content.cta', content.cta, limits.button_title);
      break;
  }
  return errors;
}

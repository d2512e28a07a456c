import { InteractiveContent, LOCATION_BUTTON_TITLE } from '@app/contracts';
import { BotButton, escapeHtml } from './bot-text';

/**
 * An interactive content as both bot channels draw it (the fallbacks declared in the contracts'
 * INTERACTIVE_RENDERING): the escaped text, one button per row, and a media header. Buttons and a
 * list's rows are callback buttons whose press carries the id; a CTA is a link button; a Flow
 * links to its web form when it has one, else is its text alone; a location request is one
 * button asking for the customer's location.
 */
export interface BotInteractive {
  text: string;
  buttons: BotButton[];
  /** A location request: one button that shares the customer's location. */
  location: string | null;
  media: { type: 'image' | 'video' | 'document'; url: string } | null;
}

export function botInteractive(c: InteractiveContent): BotInteractive {
  const text = escapeHtml(c.text);
  const plain = { text, buttons: [] as BotButton[], location: null, media: null };
  switch (c.type) {
    case 'buttons':
      return {
        ...plain,
        buttons: c.buttons.map((b) => ({ kind: 'callback', text: b.title, payload: b.id })),
        media: c.header ?? null,
      };
    case 'list':
      return {
        ...plain,
        buttons: c.sections.flatMap((s) =>
          s.rows.map((r) => ({ kind: 'callback' as const, text: r.title, payload: r.id })),
        ),
      };
    case 'cta_url':
      return { ...plain, buttons: [{ kind: 'url', text: c.button.title, url: c.button.url }] };
    case 'location_request':
      return { ...plain, location: LOCATION_BUTTON_TITLE };
    case 'flow':
      return c.fallback_url ? { ...plain, buttons: [{ kind: 'url', text: c.cta, url: c.fallback_url }] } : plain;
  }
}

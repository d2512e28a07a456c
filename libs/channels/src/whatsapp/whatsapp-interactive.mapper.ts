import { InteractiveContent } from '@app/contracts';

/** The version of the Flow message format sent (Meta's `flow_message_version`). */
const FLOW_MESSAGE_VERSION = '3';

/**
 * The Cloud API `interactive` object of an interactive content: reply buttons (with a media
 * header), a list, a CTA URL button, a location request, or a Flow (navigating to `screen` with
 * its `data`, else asking the Flow's endpoint; its `flow_token` comes back with the submission).
 */
export function toGraphInteractive(c: InteractiveContent): Record<string, unknown> {
  const body = { text: c.text };
  switch (c.type) {
    case 'buttons':
      return {
        type: 'button',
        ...(c.header ? { header: { type: c.header.type, [c.header.type]: { link: c.header.url } } } : {}),
        body,
        action: { buttons: c.buttons.map((b) => ({ type: 'reply', reply: { id: b.id, title: b.title } })) },
      };
    case 'list':
      return {
        type: 'list',
        body,
        action: {
          button: c.button,
          sections: c.sections.map((s) => ({
            title: s.title,
            rows: s.rows.map((r) => ({
              id: r.id,
              title: r.title,
              ...(r.description ? { description: r.description } : {}),
            })),
          })),
        },
      };
    case 'cta_url':
      return {
        type: 'cta_url',
        body,
        action: { name: 'cta_url', parameters: { display_text: c.button.title, url: c.button.url } },
      };
    case 'location_request':
      return { type: 'location_request_message', body, action: { name: 'send_location' } };
    case 'flow':
      return {
        type: 'flow',
        body,
        action: {
          name: 'flow',
          parameters: {
            flow_message_version: FLOW_MESSAGE_VERSION,
            flow_token: c.flow_token ?? '',
            flow_id: c.flow_id,
            flow_cta: c.cta,
            flow_action: c.screen ? 'navigate' : 'data_exchange',
            ...(c.screen ? { flow_action_payload: { screen: c.screen, ...(c.data ? { data: c.data } : {}) } } : {}),
          },
        },
      };
  }
}

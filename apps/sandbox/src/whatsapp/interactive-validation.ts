import { graphErrors } from './graph-error';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isUrl = (v: unknown) => typeof v === 'string' && /^https?:\/\/\S+$/.test(v);
const text = (v: unknown, max: number) => typeof v === 'string' && v.length > 0 && v.length <= max;

/**
 * Checks an `interactive` object as the Cloud API does: reply buttons (1 to 3, title 20, id 256,
 * unique ids), a list (button 20, at most 10 sections and 10 rows in all, row title 24, description
 * 72, id 200), a cta_url (display_text 20), a location_request_message and a flow (flow_id,
 * flow_cta 20, a token, navigate with a screen), each with a body of at most 1,024 characters.
 */
export function validateInteractive(i: Record<string, unknown>): void {
  const body = i.body;
  if (!isObject(body) || !text(body.text, 1024))
    throw graphErrors.invalidValue('interactive.body.text is required and at most 1024 characters');
  const action = i.action;
  if (!isObject(action)) throw graphErrors.missingParameter('The parameter interactive.action is required');
  switch (i.type) {
    case 'button': {
      const buttons = action.buttons;
      if (!Array.isArray(buttons) || buttons.length < 1 || buttons.length > 3)
        throw graphErrors.invalidValue('interactive.action.buttons must have 1 to 3 buttons');
      const ids = new Set<string>();
      for (const b of buttons as Record<string, unknown>[]) {
        const reply = isObject(b) && b.type === 'reply' && isObject(b.reply) ? b.reply : null;
        if (!reply || !text(reply.id, 256))
          throw graphErrors.invalidValue('button reply.id is required, at most 256 characters');
        if (!text(reply.title, 20))
          throw graphErrors.invalidValue('button reply.title is required, at most 20 characters');
        if (ids.has(reply.id as string)) throw graphErrors.invalidValue('button reply ids must be unique');
        ids.add(reply.id as string);
      }
      const header = i.header;
      if (header !== undefined) {
        const kind = isObject(header) ? String(header.type) : '';
        const media = isObject(header) ? header[kind] : undefined;
        if (!['image', 'video', 'document', 'text'].includes(kind))
          throw graphErrors.invalidValue('interactive.header.type is not valid');
        if (kind !== 'text' && !(isObject(media) && isUrl(media.link)))
          throw graphErrors.missingParameter(`interactive.header.${kind}.link is required`);
      }
      return;
    }
    case 'list': {
      if (!text(action.button, 20))
        throw graphErrors.invalidValue('list action.button is required, at most 20 characters');
      const sections = action.sections;
      if (!Array.isArray(sections) || sections.length < 1 || sections.length > 10)
        throw graphErrors.invalidValue('list action.sections must have 1 to 10 sections');
      let rows = 0;
      for (const s of sections as Record<string, unknown>[]) {
        if (!isObject(s) || !Array.isArray(s.rows) || !s.rows.length)
          throw graphErrors.invalidValue('a section needs rows');
        if (sections.length > 1 && !text(s.title, 24))
          throw graphErrors.invalidValue('section title is required with several sections, at most 24 characters');
        for (const r of s.rows as Record<string, unknown>[]) {
          rows += 1;
          if (!isObject(r) || !text(r.id, 200))
            throw graphErrors.invalidValue('row id is required, at most 200 characters');
          if (!text(r.title, 24)) throw graphErrors.invalidValue('row title is required, at most 24 characters');
          if (r.description !== undefined && !text(r.description, 72))
            throw graphErrors.invalidValue('row description is at most 72 characters');
        }
      }
      if (rows > 10) throw graphErrors.invalidValue('a list has at most 10 rows');
      return;
    }
    case 'cta_url': {
      const p = action.parameters;
      if (action.name !== 'cta_url' || !isObject(p) || !text(p.display_text, 20) || !isUrl(p.url))
        throw graphErrors.invalidValue('cta_url needs parameters.display_text (at most 20) and a url');
      return;
    }
    case 'location_request_message':
      if (action.name !== 'send_location') throw graphErrors.invalidValue('action.name must be send_location');
      return;
    case 'flow': {
      const p = action.parameters;
      if (action.name !== 'flow' || !isObject(p))
        throw graphErrors.missingParameter('flow action.parameters is required');
      if (typeof p.flow_id !== 'string' || !p.flow_id) throw graphErrors.missingParameter('flow_id is required');
      if (!text(p.flow_cta, 20)) throw graphErrors.invalidValue('flow_cta is required, at most 20 characters');
      if (typeof p.flow_token !== 'string' || !p.flow_token)
        throw graphErrors.missingParameter('flow_token is required');
      if (
        p.flow_action === 'navigate' &&
        !(isObject(p.flow_action_payload) && typeof p.flow_action_payload.screen === 'string')
      )
        throw graphErrors.missingParameter('flow_action_payload.screen is required to navigate');
      return;
    }
    default:
      throw graphErrors.invalidParameter(`Unsupported interactive type ${String(i.type)}`);
  }
}

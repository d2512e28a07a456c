import { InboundContent, InboundMedia, InboundReply, InboundSender } from '@app/contracts';

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const num = (v: unknown): number | null => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
};
const obj = (v: unknown): Obj => (isObject(v) ? v : {});

/** A `contacts[]` entry of a messages change: the phone (`wa_id`) and, since 2026, the business-scoped id. */
export interface WebhookContact {
  wa_id?: string;
  user_id?: string;
  previous_user_id?: string;
  profile?: { name?: string; username?: string };
}

/** The media object of an image, video, audio, voice note, document or sticker: the media id is the handle. */
function mediaOf(m: Obj): InboundMedia | null {
  const handle = str(m.id);
  if (!handle) return null;
  return {
    handle,
    mime_type: str(m.mime_type),
    file_name: str(m.filename),
    size: num(m.file_size),
  };
}

/** A Flow's `response_json`, parsed; kept as the raw string when it is not JSON (never null). */
function flowPayload(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw ?? {};
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

/** A button press, list choice or Flow answer of an `interactive` message; null for any other. */
function interactiveReply(i: Obj, contextId: string | null): InboundReply | null {
  const button = obj(i.button_reply);
  const list = obj(i.list_reply);
  if (i.type === 'button_reply' || isObject(i.button_reply)) {
    return {
      kind: 'button',
      id: str(button.id),
      title: str(button.title),
      payload: null,
      context_message_id: contextId,
    };
  }
  if (i.type === 'list_reply' || isObject(i.list_reply)) {
    const description = str(list.description);
    return {
      kind: 'list',
      id: str(list.id),
      title: str(list.title),
      payload: description ? { description } : null,
      context_message_id: contextId,
    };
  }
  if (i.type === 'nfm_reply' || isObject(i.nfm_reply)) {
    const nfm = obj(i.nfm_reply);
    return {
      kind: 'flow',
      id: str(nfm.name),
      title: str(nfm.body),
      payload: flowPayload(nfm.response_json),
      context_message_id: contextId,
    };
  }
  return null;
}

const MEDIA_TYPES = ['image', 'video', 'document', 'sticker'] as const;

/**
 * What an inbound WhatsApp message holds, in the one inbound shape: every Cloud API message type
 * (text, image, video, audio or voice note, document, sticker, location, contacts, reaction,
 * button / list / Flow replies, the template quick-reply `button`, edits) and `unsupported` for
 * anything else (the message is still there, with what text it has). Never null.
 */
export function whatsappContentOf(m: Obj): InboundContent {
  const type = typeof m.type === 'string' ? m.type : '';
  const contextId = contextOf(m);
  const unsupported = (text: string | null = null): InboundContent => ({ type: 'unsupported', text });
  if (type === 'text') return { type: 'text', text: str(obj(m.text).body) ?? '' };
  if ((MEDIA_TYPES as readonly string[]).includes(type)) {
    const body = obj(m[type]);
    const media = mediaOf(body);
    return media ? { type: type as (typeof MEDIA_TYPES)[number], text: str(body.caption), media } : unsupported();
  }
  if (type === 'audio' || type === 'voice') {
    const body = obj(m[type] ?? m.audio);
    const media = mediaOf(body);
    if (!media) return unsupported();
    return { type: type === 'voice' || body.voice === true ? 'voice' : 'audio', text: null, media };
  }
  if (type === 'location') {
    const l = obj(m.location);
    const latitude = num(l.latitude);
    const longitude = num(l.longitude);
    if (latitude === null || longitude === null) return unsupported();
    const name = str(l.name);
    return { type: 'location', text: name, location: { latitude, longitude, name, address: str(l.address) } };
  }
  if (type === 'contacts') {
    const cards = (Array.isArray(m.contacts) ? m.contacts : []).filter(isObject).map((c) => {
      const name = obj(c.name);
      const phones = (Array.isArray(c.phones) ? c.phones : [])
        .filter(isObject)
        .map((p) => str(p.phone) ?? str(p.wa_id))
        .filter((p): p is string => p !== null);
      return { name: str(name.formatted_name) ?? str(name.first_name) ?? phones[0] ?? '', phones };
    });
    return { type: 'contacts', text: null, contacts: cards };
  }
  if (type === 'reaction') {
    const r = obj(m.reaction);
    const target = str(r.message_id);
    if (!target) return unsupported();
    return { type: 'reaction', text: null, reaction: { emoji: str(r.emoji), target_provider_message_id: target } };
  }
  if (type === 'interactive') {
    const reply = interactiveReply(obj(m.interactive), contextId);
    return reply ? { type: 'reply', text: reply.title, reply } : unsupported();
  }
  if (type === 'button') {
    const b = obj(m.button);
    const payload = str(b.payload);
    const reply: InboundReply = {
      kind: 'button',
      id: payload,
      title: str(b.text),
      payload,
      context_message_id: contextId,
    };
    return { type: 'reply', text: reply.title, reply };
  }
  if (type === 'edit') {
    const e = obj(m.edit);
    const inner = obj(e.message);
    const target = str(e.original_message_id) ?? str(e.message_id) ?? contextId;
    if (!target) return unsupported();
    const text = str(obj(inner.text).body) ?? str(obj(e.text).body) ?? str(e.body) ?? str(obj(m.text).body);
    return { type: 'edit', text, edit: { target_provider_message_id: target } };
  }
  const system = obj(m.system);
  return unsupported(str(system.body) ?? str(obj(m.text).body));
}

/** The message this one answers or quotes (`context.id`), when it names one. */
export function contextOf(m: Obj): string | null {
  return str(obj(m.context).id);
}

/**
 * Who wrote, wherever Meta puts it: the phone in `messages[].from` (or the contact's `wa_id`), the
 * business-scoped user id in `messages[].from_user_id` (or the contact's `user_id`), the username
 * in the contact's `profile.username`, and a changed id's predecessor in a `system` message
 * (`user_changed_user_id`) or the contact's `previous_user_id`. The contact is the one whose
 * `wa_id` or `user_id` matches, or the only one.
 */
export function whatsappSenderOf(m: Obj, contacts: unknown[]): { sender: InboundSender; profileName: string | null } {
  const phone0 = str(m.from);
  const userId0 = str(m.from_user_id);
  const entries = contacts.filter(isObject) as WebhookContact[];
  const contact =
    entries.find((c) => (phone0 && c.wa_id === phone0) || (userId0 && c.user_id === userId0)) ??
    (entries.length === 1 && !phone0 && !userId0 ? entries[0] : undefined);
  const system = obj(m.system);
  const changed = m.type === 'system' && typeof system.type === 'string' && /user_id/.test(system.type);
  const sender: InboundSender = {
    phone: phone0 ?? str(contact?.wa_id),
    user_id: userId0 ?? str(contact?.user_id) ?? (changed ? str(system.user_id) : null),
    username: str(contact?.profile?.username),
    previous_user_id: (changed ? str(system.previous_user_id) : null) ?? str(contact?.previous_user_id),
  };
  return { sender, profileName: str(contact?.profile?.name) };
}

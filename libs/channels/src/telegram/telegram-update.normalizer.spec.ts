import type { Update } from '@grammyjs/types';
import { InboundContent, MessageReceivedData } from '@app/contracts';
import { normalizeTelegramUpdate } from './telegram-update.normalizer';

const now = new Date(1_763_700_000_000);
const chat = { id: 5550001, type: 'private' as const, first_name: 'Ann' };
const from = { id: 5550001, is_bot: false, first_name: 'Ann', last_name: 'Lee', username: 'annlee' };
const base = { message_id: 7, date: 1763690000, chat, from };

const file = (id: string, extra: Record<string, unknown> = {}) => ({ file_id: id, file_unique_id: `u${id}`, ...extra });
const media = (handle: string, mime: string | null = null, name: string | null = null, size: number | null = null) => ({
  handle,
  mime_type: mime,
  file_name: name,
  size,
});

/** Each kind of Telegram message as the Bot API posts it, and the content it becomes. */
const KINDS: [string, Record<string, unknown>, InboundContent][] = [
  ['text', { text: 'hello' }, { type: 'text', text: 'hello' }],
  [
    'photo (the largest size)',
    {
      caption: 'look',
      photo: [file('small', { width: 90, height: 90 }), file('big', { width: 1280, height: 960, file_size: 2048 })],
    },
    { type: 'image', text: 'look', media: media('big', 'image/jpeg', null, 2048) },
  ],
  [
    'video',
    { video: file('v1', { width: 1, height: 1, duration: 3, mime_type: 'video/mp4', file_size: 10 }) },
    { type: 'video', text: null, media: media('v1', 'video/mp4', null, 10) },
  ],
  [
    'audio',
    { audio: file('a1', { duration: 3, mime_type: 'audio/mpeg', file_name: 'song.mp3' }) },
    { type: 'audio', text: null, media: media('a1', 'audio/mpeg', 'song.mp3') },
  ],
  [
    'voice',
    { voice: file('vo1', { duration: 2, mime_type: 'audio/ogg' }) },
    { type: 'voice', text: null, media: media('vo1', 'audio/ogg') },
  ],
  [
    'document',
    { caption: 'invoice', document: file('d1', { file_name: 'a.pdf', mime_type: 'application/pdf', file_size: 99 }) },
    { type: 'document', text: 'invoice', media: media('d1', 'application/pdf', 'a.pdf', 99) },
  ],
  [
    'sticker',
    {
      sticker: file('s1', {
        type: 'regular',
        width: 512,
        height: 512,
        is_animated: false,
        is_video: false,
        emoji: '😀',
      }),
    },
    { type: 'sticker', text: '😀', media: media('s1') },
  ],
  [
    'location',
    { location: { latitude: 55.75, longitude: 37.61 } },
    { type: 'location', text: null, location: { latitude: 55.75, longitude: 37.61, name: null, address: null } },
  ],
  [
    'venue',
    {
      location: { latitude: 55.75, longitude: 37.61 },
      venue: { location: { latitude: 55.75, longitude: 37.61 }, title: 'Office', address: 'Main st 1' },
    },
    {
      type: 'location',
      text: 'Office',
      location: { latitude: 55.75, longitude: 37.61, name: 'Office', address: 'Main st 1' },
    },
  ],
  [
    'contact',
    { contact: { phone_number: '+79990001122', first_name: 'Bob', last_name: 'Ray' } },
    { type: 'contacts', text: null, contacts: [{ name: 'Bob Ray', phones: ['+79990001122'] }] },
  ],
  ['anything else (a poll)', { poll: { id: 'p' } }, { type: 'unsupported', text: null }],
];

const data = (update: Record<string, unknown>) =>
  normalizeTelegramUpdate(update as unknown as Update, 'conn-1', now)!.data as MessageReceivedData;

describe('normalizeTelegramUpdate', () => {
  it.each(KINDS)('%s arrives as message.received with its content', (_kind, message, content) => {
    const d = data({ update_id: 10, message: { ...base, ...message } });
    expect(d.content).toEqual(content);
    expect(d).toMatchObject({
      type: content.type,
      text: content.text,
      from: '5550001',
      provider_message_id: '5550001:7',
    });
    expect(d.sender).toEqual({ phone: null, user_id: '5550001', username: 'annlee', previous_user_id: null });
  });

  it('names the message a reply quotes', () => {
    const d = data({ update_id: 10, message: { ...base, text: 'this', reply_to_message: { ...base, message_id: 3 } } });
    expect(d.context_provider_message_id).toBe('5550001:3');
  });

  it('turns an edited message into an edit of the original', () => {
    const d = data({ update_id: 11, edited_message: { ...base, edit_date: 1763690100, text: 'fixed' } });
    expect(d.content).toEqual({ type: 'edit', text: 'fixed', edit: { target_provider_message_id: '5550001:7' } });
    expect(d).toMatchObject({ provider_message_id: '5550001:7:edit:1763690100', timestamp: 1763690100 });
  });

  it('turns a reaction into a reaction on the message, and a taken-back one into a null emoji', () => {
    const reaction = (emoji: string[]) => ({
      update_id: 12,
      message_reaction: {
        chat,
        message_id: 7,
        user: from,
        date: 1763690200,
        old_reaction: [],
        new_reaction: emoji.map((e) => ({ type: 'emoji', emoji: e })),
      },
    });
    expect(data(reaction(['👍'])).content).toEqual({
      type: 'reaction',
      text: null,
      reaction: { emoji: '👍', target_provider_message_id: '5550001:7' },
    });
    expect(data(reaction([])).content.reaction).toEqual({ emoji: null, target_provider_message_id: '5550001:7' });
  });

  it('turns a button press into a reply with the button title and the message it was pressed on', () => {
    const d = data({
      update_id: 13,
      callback_query: {
        id: 'cb1',
        from,
        chat_instance: 'x',
        data: 'stop',
        message: {
          message_id: 5,
          date: 1,
          chat,
          text: 'Offers?',
          reply_markup: { inline_keyboard: [[{ text: 'Stop promotions', callback_data: 'stop' }]] },
        },
      },
    });
    expect(d.content).toEqual({
      type: 'reply',
      text: 'Stop promotions',
      reply: { kind: 'button', id: 'stop', title: 'Stop promotions', payload: 'stop', context_message_id: '5550001:5' },
    });
    expect(d).toMatchObject({ provider_message_id: 'callback:cb1', context_provider_message_id: '5550001:5' });
  });

  it('gives a repeated update the same event id', () => {
    const u = { update_id: 20, message: { ...base, text: 'a' } } as unknown as Update;
    expect(normalizeTelegramUpdate(u, 'c', now)!.id).toBe(normalizeTelegramUpdate(u, 'c', new Date(0))!.id);
  });
});

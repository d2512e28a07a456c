import type { Update } from '@maxhub/max-bot-api/types';
import { InboundContent, MessageReceivedData } from '@app/contracts';
import { normalizeMaxUpdate } from './max-update.normalizer';

const now = new Date(1_763_700_000_000);
const user = {
  user_id: 5550002,
  name: 'Bob',
  first_name: 'Bob',
  username: 'bob',
  is_bot: false,
  last_activity_time: 0,
};
const message = (body: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  sender: user,
  recipient: { chat_id: 1, chat_type: 'dialog', user_id: 9, post_id: null },
  timestamp: 1763690000123,
  body: { mid: 'mid.1', seq: 1, text: null, ...body },
  ...extra,
});
const media = (handle: string, name: string | null = null, size: number | null = null) => ({
  handle,
  mime_type: null,
  file_name: name,
  size,
});

/** Each MAX attachment as message_created carries it, and the content it becomes. */
const KINDS: [string, Record<string, unknown>, InboundContent][] = [
  ['text', { text: 'hi' }, { type: 'text', text: 'hi' }],
  [
    'image',
    {
      text: 'look',
      attachments: [{ type: 'image', payload: { photo_id: 1, url: 'https://i.max/1.jpg', token: 't1' } }],
    },
    { type: 'image', text: 'look', media: media('https://i.max/1.jpg') },
  ],
  [
    'video',
    { attachments: [{ type: 'video', payload: { url: 'https://v.max/1', token: 't2' }, width: 1, height: 1 }] },
    { type: 'video', text: null, media: media('https://v.max/1') },
  ],
  [
    'audio',
    { attachments: [{ type: 'audio', payload: { url: 'https://a.max/1', token: 't3' } }] },
    { type: 'audio', text: null, media: media('https://a.max/1') },
  ],
  [
    'file',
    { attachments: [{ type: 'file', payload: { url: 'https://f.max/1', token: 't4' }, filename: 'a.pdf', size: 99 }] },
    { type: 'document', text: null, media: media('https://f.max/1', 'a.pdf', 99) },
  ],
  [
    'sticker',
    { attachments: [{ type: 'sticker', payload: { url: 'https://s.max/1', code: 'c1' }, width: 1, height: 1 }] },
    { type: 'sticker', text: null, media: media('https://s.max/1') },
  ],
  [
    'location',
    { attachments: [{ type: 'location', latitude: 55.75, longitude: 37.61 }] },
    { type: 'location', text: null, location: { latitude: 55.75, longitude: 37.61, name: null, address: null } },
  ],
  [
    'contact',
    {
      attachments: [
        {
          type: 'contact',
          payload: { vcf_info: 'BEGIN:VCARD\nFN:Ann Lee\nTEL;TYPE=cell:+79990001122\nEND:VCARD', max_info: null },
        },
      ],
    },
    { type: 'contacts', text: null, contacts: [{ name: 'Ann Lee', phones: ['+79990001122'] }] },
  ],
  [
    'anything else (a share)',
    { attachments: [{ type: 'share', payload: { url: 'https://x' } }] },
    { type: 'unsupported', text: null },
  ],
];

const data = (update: Record<string, unknown>) =>
  normalizeMaxUpdate(update as unknown as Update, 'conn-9', now)!.data as MessageReceivedData;

describe('normalizeMaxUpdate', () => {
  it.each(KINDS)('%s arrives as message.received with its content', (_kind, body, content) => {
    const d = data({ update_type: 'message_created', timestamp: 1763690000123, message: message(body) });
    expect(d.content).toEqual(content);
    expect(d).toMatchObject({ type: content.type, text: content.text, from: '5550002', provider_message_id: 'mid.1' });
    expect(d.sender).toEqual({ phone: null, user_id: '5550002', username: 'bob', previous_user_id: null });
    expect(d.timestamp).toBe(1763690000);
  });

  it("names the dialog the user wrote in (where typing goes), not a group's chat", () => {
    const inDialog = data({ update_type: 'message_created', timestamp: 1, message: message({ text: 'hi' }) });
    expect(inDialog.chat_id).toBe('1');
    const recipient = { chat_id: -5, chat_type: 'chat', user_id: null, post_id: null };
    const inGroup = data({
      update_type: 'message_created',
      timestamp: 1,
      message: message({ text: 'hi' }, { recipient }),
    });
    expect(inGroup.chat_id).toBeNull();
  });

  it('names the message a reply answers', () => {
    const d = data({
      update_type: 'message_created',
      timestamp: 1,
      message: message({ text: 'yes' }, { link: { type: 'reply', message: { mid: 'mid.0', seq: 0, text: 'q' } } }),
    });
    expect(d.context_provider_message_id).toBe('mid.0');
  });

  it('turns message_edited into an edit of the message, one event per edit', () => {
    const edit = (at: number) =>
      normalizeMaxUpdate(
        { update_type: 'message_edited', timestamp: at, message: message({ text: 'fixed' }) } as unknown as Update,
        'conn-9',
        now,
      )!;
    expect(edit(1763690500000).data.content).toEqual({
      type: 'edit',
      text: 'fixed',
      edit: { target_provider_message_id: 'mid.1' },
    });
    expect(edit(1763690500000).data.provider_message_id).toBe('mid.1:edit:1763690500000');
    expect(edit(1763690500000).id).toBe(edit(1763690500000).id);
    expect(edit(1763690600000).id).not.toBe(edit(1763690500000).id);
  });

  it('turns message_callback into a button reply with the title and the message pressed on', () => {
    const d = data({
      update_type: 'message_callback',
      timestamp: 1763690001000,
      callback: { timestamp: 1763690001000, callback_id: 'cb.7', payload: 'stop', user },
      message: message({
        mid: 'mid.ours',
        text: 'Offers?',
        attachments: [
          {
            type: 'inline_keyboard',
            payload: { buttons: [[{ type: 'callback', text: 'Stop promotions', payload: 'stop' }]] },
          },
        ],
      }),
    });
    expect(d.content).toEqual({
      type: 'reply',
      text: 'Stop promotions',
      reply: { kind: 'button', id: 'stop', title: 'Stop promotions', payload: 'stop', context_message_id: 'mid.ours' },
    });
    expect(d).toMatchObject({ provider_message_id: 'cb.7', context_provider_message_id: 'mid.ours' });
  });
});

import { callbackEventId, InboundContent, MessageReceivedData } from '@app/contracts';
import { normalizeWhatsAppWebhook } from './whatsapp-webhook.normalizer';

const now = new Date('2025-11-21T00:00:00Z');

function webhook(messages: Record<string, unknown>[], contacts: Record<string, unknown>[] = []) {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '200',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '1', phone_number_id: '100' },
              contacts,
              messages,
            },
          },
        ],
      },
    ],
  };
}

const received = (message: Record<string, unknown>, contacts?: Record<string, unknown>[]) => {
  const out = normalizeWhatsAppWebhook(
    webhook([{ from: '79990001122', id: 'wamid.X', timestamp: '1763700000', ...message }], contacts),
    now,
  );
  const event = out.events.find((e) => e.type === 'message.received');
  return event?.data as unknown as MessageReceivedData;
};

/** Each kind as the Cloud API's messages webhook carries it, and the content it becomes. */
const KINDS: [string, Record<string, unknown>, InboundContent][] = [
  ['text', { type: 'text', text: { body: 'Hello' } }, { type: 'text', text: 'Hello' }],
  [
    'image',
    { type: 'image', image: { id: 'media.1', mime_type: 'image/jpeg', sha256: 'x', caption: 'receipt' } },
    {
      type: 'image',
      text: 'receipt',
      media: { handle: 'media.1', mime_type: 'image/jpeg', file_name: null, size: null },
    },
  ],
  [
    'video',
    { type: 'video', video: { id: 'media.2', mime_type: 'video/mp4' } },
    { type: 'video', text: null, media: { handle: 'media.2', mime_type: 'video/mp4', file_name: null, size: null } },
  ],
  [
    'audio',
    { type: 'audio', audio: { id: 'media.3', mime_type: 'audio/mpeg', voice: false } },
    { type: 'audio', text: null, media: { handle: 'media.3', mime_type: 'audio/mpeg', file_name: null, size: null } },
  ],
  [
    'voice note',
    { type: 'audio', audio: { id: 'media.4', mime_type: 'audio/ogg; codecs=opus', voice: true } },
    {
      type: 'voice',
      text: null,
      media: { handle: 'media.4', mime_type: 'audio/ogg; codecs=opus', file_name: null, size: null },
    },
  ],
  [
    'document',
    { type: 'document', document: { id: 'media.5', mime_type: 'application/pdf', filename: 'a.pdf', caption: 'c' } },
    {
      type: 'document',
      text: 'c',
      media: { handle: 'media.5', mime_type: 'application/pdf', file_name: 'a.pdf', size: null },
    },
  ],
  [
    'sticker',
    { type: 'sticker', sticker: { id: 'media.6', mime_type: 'image/webp', animated: false } },
    { type: 'sticker', text: null, media: { handle: 'media.6', mime_type: 'image/webp', file_name: null, size: null } },
  ],
  [
    'location',
    { type: 'location', location: { latitude: 55.75, longitude: 37.61, name: 'Office', address: 'Main st 1' } },
    {
      type: 'location',
      text: 'Office',
      location: { latitude: 55.75, longitude: 37.61, name: 'Office', address: 'Main st 1' },
    },
  ],
  [
    'contacts',
    {
      type: 'contacts',
      contacts: [
        {
          name: { formatted_name: 'Ann Lee', first_name: 'Ann' },
          phones: [{ phone: '+7 999 000 11 22', type: 'CELL' }],
        },
      ],
    },
    { type: 'contacts', text: null, contacts: [{ name: 'Ann Lee', phones: ['+7 999 000 11 22'] }] },
  ],
  [
    'reaction',
    { type: 'reaction', reaction: { message_id: 'wamid.OURS', emoji: '👍' } },
    { type: 'reaction', text: null, reaction: { emoji: '👍', target_provider_message_id: 'wamid.OURS' } },
  ],
  [
    'reaction removed',
    { type: 'reaction', reaction: { message_id: 'wamid.OURS' } },
    { type: 'reaction', text: null, reaction: { emoji: null, target_provider_message_id: 'wamid.OURS' } },
  ],
  [
    'button reply',
    {
      type: 'interactive',
      context: { from: '15550001111', id: 'wamid.ASKED' },
      interactive: { type: 'button_reply', button_reply: { id: 'yes', title: 'Yes' } },
    },
    {
      type: 'reply',
      text: 'Yes',
      reply: { kind: 'button', id: 'yes', title: 'Yes', payload: null, context_message_id: 'wamid.ASKED' },
    },
  ],
  [
    'list reply',
    {
      type: 'interactive',
      interactive: { type: 'list_reply', list_reply: { id: 'row-2', title: 'Tuesday', description: '10:00' } },
    },
    {
      type: 'reply',
      text: 'Tuesday',
      reply: {
        kind: 'list',
        id: 'row-2',
        title: 'Tuesday',
        payload: { description: '10:00' },
        context_message_id: null,
      },
    },
  ],
  [
    'flow answer',
    {
      type: 'interactive',
      context: { id: 'wamid.FLOW' },
      interactive: {
        type: 'nfm_reply',
        nfm_reply: { name: 'flow', body: 'Sent', response_json: '{"flow_token":"t1","size":"M"}' },
      },
    },
    {
      type: 'reply',
      text: 'Sent',
      reply: {
        kind: 'flow',
        id: 'flow',
        title: 'Sent',
        payload: { flow_token: 't1', size: 'M' },
        context_message_id: 'wamid.FLOW',
      },
    },
  ],
  [
    'flow answer that is not JSON',
    { type: 'interactive', interactive: { type: 'nfm_reply', nfm_reply: { name: 'flow', response_json: '{oops' } } },
    {
      type: 'reply',
      text: null,
      reply: { kind: 'flow', id: 'flow', title: null, payload: '{oops', context_message_id: null },
    },
  ],
  [
    'template quick reply',
    { type: 'button', context: { id: 'wamid.TPL' }, button: { text: 'Stop promotions', payload: 'STOP' } },
    {
      type: 'reply',
      text: 'Stop promotions',
      reply: { kind: 'button', id: 'STOP', title: 'Stop promotions', payload: 'STOP', context_message_id: 'wamid.TPL' },
    },
  ],
  [
    'edit',
    { type: 'edit', edit: { original_message_id: 'wamid.FIRST', message: { type: 'text', text: { body: 'Fixed' } } } },
    { type: 'edit', text: 'Fixed', edit: { target_provider_message_id: 'wamid.FIRST' } },
  ],
  [
    'unsupported',
    { type: 'unsupported', errors: [{ code: 131051, title: 'Message type unknown' }] },
    { type: 'unsupported', text: null },
  ],
  ['an unknown type', { type: 'order', order: { catalog_id: '1' } }, { type: 'unsupported', text: null }],
];

describe('WhatsApp inbound content', () => {
  it.each(KINDS)('%s arrives as one message.received with its content', (_kind, message, content) => {
    const data = received(message);
    expect(data.content).toEqual(content);
    expect(data.type).toBe(content.type);
    expect(data.text).toBe(content.text);
  });

  it('names the quoted message', () => {
    expect(
      received({ type: 'text', text: { body: 'a' }, context: { id: 'wamid.Q' } }).context_provider_message_id,
    ).toBe('wamid.Q');
  });

  it('keeps message.reaction and gives the reaction as a received message too, each with its own id', () => {
    const out = normalizeWhatsAppWebhook(
      webhook([
        { from: '7999', id: 'wamid.R', timestamp: '1', type: 'reaction', reaction: { message_id: 'w', emoji: '❤' } },
      ]),
      now,
    );
    expect(out.events.map((e) => [e.type, e.id])).toEqual([
      ['message.reaction', callbackEventId('whatsapp', 'reaction', 'wamid.R')],
      ['message.received', callbackEventId('whatsapp', 'received', 'wamid.R')],
    ]);
  });

  describe('senders', () => {
    it('a phone alone', () => {
      const data = received({ type: 'text', text: { body: 'a' } }, [
        { wa_id: '79990001122', profile: { name: 'Ann' } },
      ]);
      expect(data.from).toBe('79990001122');
      expect(data.profile_name).toBe('Ann');
      expect(data.sender).toEqual({ phone: '79990001122', user_id: null, username: null, previous_user_id: null });
    });

    it('a phone and a business-scoped user id', () => {
      const data = received({ type: 'text', text: { body: 'a' }, from_user_id: 'US.13491208655302741918' }, [
        { wa_id: '79990001122', user_id: 'US.13491208655302741918', profile: { name: 'Ann' } },
      ]);
      expect(data.from).toBe('79990001122');
      expect(data.sender).toEqual({
        phone: '79990001122',
        user_id: 'US.13491208655302741918',
        username: null,
        previous_user_id: null,
      });
    });

    it('the id alone, with a username: the id is `from`', () => {
      const data = received({ from: undefined, from_user_id: 'US.1349', type: 'text', text: { body: 'a' } }, [
        { user_id: 'US.1349', profile: { name: 'Ann', username: 'ann.lee' } },
      ]);
      expect(data.from).toBe('US.1349');
      expect(data.profile_name).toBe('Ann');
      expect(data.sender).toEqual({ phone: null, user_id: 'US.1349', username: 'ann.lee', previous_user_id: null });
    });

    it('the notice of a changed id names the previous one', () => {
      const data = received(
        {
          from: undefined,
          from_user_id: 'US.2000',
          type: 'system',
          system: { type: 'user_changed_user_id', body: 'User ID changed', previous_user_id: 'US.1000' },
        },
        [{ user_id: 'US.2000' }],
      );
      expect(data.from).toBe('US.2000');
      expect(data.content).toEqual({ type: 'unsupported', text: 'User ID changed' });
      expect(data.sender).toEqual({ phone: null, user_id: 'US.2000', username: null, previous_user_id: 'US.1000' });
    });

    it('skips a message with neither a phone nor an id', () => {
      const out = normalizeWhatsAppWebhook(webhook([{ id: 'wamid.N', type: 'text', text: { body: 'a' } }]), now);
      expect(out.events).toEqual([]);
      expect(out.skipped).toEqual(['inbound message without id or sender']);
    });

    it('a status of a recipient known only by its id names the id', () => {
      const out = normalizeWhatsAppWebhook(
        {
          ...webhook([]),
          entry: [
            {
              id: '200',
              changes: [
                {
                  field: 'messages',
                  value: {
                    metadata: { phone_number_id: '100' },
                    statuses: [{ id: 'wamid.S', status: 'delivered', timestamp: '1', recipient_user_id: 'US.1349' }],
                  },
                },
              ],
            },
          ],
        },
        now,
      );
      expect(out.events[0].data).toMatchObject({ recipient: 'US.1349', status: 'DELIVERED' });
    });
  });
});

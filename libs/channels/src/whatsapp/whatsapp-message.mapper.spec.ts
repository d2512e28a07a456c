import { OutboundContent, OutboundMessage } from '@app/contracts';
import { messagesEndpoint, toGraphMessage } from './whatsapp-message.mapper';

function message(kind: OutboundMessage['kind'], content: OutboundContent): OutboundMessage {
  return {
    id: '0192f0c8-0000-7000-8000-000000000001',
    channel: 'whatsapp',
    priority: 'service',
    category: null,
    user_id: 'u1',
    app_id: 1,
    sender: { connection_id: '1100001', waba_id: '2200001' },
    recipient: '79990001122',
    kind,
    content,
    queued_at: 0,
  };
}

const envelope = {
  messaging_product: 'whatsapp',
  recipient_type: 'individual',
  to: '79990001122',
  biz_opaque_callback_data: '0192f0c8-0000-7000-8000-000000000001',
};

describe('toGraphMessage', () => {
  it('maps TEXT to text.body', () => {
    expect(toGraphMessage(message('TEXT', { text: { body: 'Hello' } }))).toEqual({
      ...envelope,
      type: 'text',
      text: { body: 'Hello' },
    });
  });

  it('addresses a business-scoped user id as recipient, and carries preview_url and a document file name', () => {
    const { to: _to, ...rest } = envelope;
    const text = { ...message('TEXT', { text: { body: 'https://a.example', preview_url: true } }) };
    expect(toGraphMessage({ ...text, recipient: 'US.13491208655302741918' })).toEqual({
      ...rest,
      recipient: 'US.13491208655302741918',
      type: 'text',
      text: { body: 'https://a.example', preview_url: true },
    });
    const doc = message('DOCUMENT', { document: { url: 'https://a.example/r.pdf', file_name: 'r.pdf' } });
    expect(toGraphMessage(doc)).toMatchObject({
      to: '79990001122',
      document: { link: 'https://a.example/r.pdf', filename: 'r.pdf' },
    });
  });

  it("carries a campaign message's campaign with its id, for the status callbacks", () => {
    const msg = {
      ...message('TEXT', { text: { body: 'Hello' } }),
      campaign_id: '0192f0c8-0000-7000-8000-00000000c0de',
    };
    expect(toGraphMessage(msg).biz_opaque_callback_data).toBe(
      '0192f0c8-0000-7000-8000-000000000001:0192f0c8-0000-7000-8000-00000000c0de',
    );
  });

  it.each([
    ['IMAGE', 'image'],
    ['VIDEO', 'video'],
    ['DOCUMENT', 'document'],
  ] as const)('maps %s to a link with its caption', (kind, key) => {
    const content = { [key]: { url: 'https://cdn.example.com/f', caption: 'Look' } } as OutboundContent;
    expect(toGraphMessage(message(kind, content))).toEqual({
      ...envelope,
      type: key,
      [key]: { link: 'https://cdn.example.com/f', caption: 'Look' },
    });
    const bare = { [key]: { url: 'https://cdn.example.com/f' } } as OutboundContent;
    expect(toGraphMessage(message(kind, bare))).toMatchObject({ [key]: { link: 'https://cdn.example.com/f' } });
    expect(JSON.stringify(toGraphMessage(message(kind, bare)))).not.toContain('caption');
  });

  it('maps AUDIO to a link, and a voice note to voice: true', () => {
    expect(toGraphMessage(message('AUDIO', { audio: { url: 'https://a/x.mp3' } }))).toEqual({
      ...envelope,
      type: 'audio',
      audio: { link: 'https://a/x.mp3' },
    });
    expect(toGraphMessage(message('AUDIO', { audio: { url: 'https://a/x.ogg', is_voice: true } }))).toEqual({
      ...envelope,
      type: 'audio',
      audio: { link: 'https://a/x.ogg', voice: true },
    });
  });

  it('maps REACTION to the provider id of the message reacted to', () => {
    const body = toGraphMessage(
      message('REACTION', { reaction: { emoji: '👍', message_id: 'our-id', provider_message_id: 'wamid.ABC' } }),
    );
    expect(body).toEqual({ ...envelope, type: 'reaction', reaction: { message_id: 'wamid.ABC', emoji: '👍' } });
    const inbound = toGraphMessage(message('REACTION', { reaction: { emoji: '❤️', message_id: 'wamid.IN' } }));
    expect(inbound).toMatchObject({ reaction: { message_id: 'wamid.IN', emoji: '❤️' } });
  });

  it('maps a TEMPLATE with text header, body and URL button values', () => {
    const body = toGraphMessage(
      message('TEMPLATE', {
        template: {
          name: 'order_update',
          language: 'en',
          header_values: ['Anna'],
          body_values: ['12345', '2 days'],
          buttons: [
            { index: 0, type: 'URL', values: ['track/12345'] },
            { index: 1, type: 'QUICK_REPLY', values: [] },
          ],
        },
      }),
    );
    expect(body).toEqual({
      ...envelope,
      type: 'template',
      template: {
        name: 'order_update',
        language: { code: 'en' },
        components: [
          { type: 'header', parameters: [{ type: 'text', text: 'Anna' }] },
          {
            type: 'body',
            parameters: [
              { type: 'text', text: '12345' },
              { type: 'text', text: '2 days' },
            ],
          },
          { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'track/12345' }] },
        ],
      },
    });
  });

  it.each([
    ['IMAGE', 'image'],
    ['VIDEO', 'video'],
    ['DOCUMENT', 'document'],
  ] as const)('maps a %s template to a media header parameter', (type, key) => {
    const body = toGraphMessage(
      message('TEMPLATE', {
        template: { name: 'promo', language: 'ru', media: { type, url: 'https://cdn/m' }, body_values: ['x'] },
      }),
    );
    expect(body).toMatchObject({
      template: {
        components: [
          { type: 'header', parameters: [{ type: key, [key]: { link: 'https://cdn/m' } }] },
          { type: 'body', parameters: [{ type: 'text', text: 'x' }] },
        ],
      },
    });
  });

  it('sends a template without variables without components', () => {
    const body = toGraphMessage(message('TEMPLATE', { template: { name: 'hello_world', language: 'en_US' } }));
    expect(body).toEqual({
      ...envelope,
      type: 'template',
      template: { name: 'hello_world', language: { code: 'en_US' } },
    });
  });

  it('refuses content that does not match the kind', () => {
    expect(() => toGraphMessage(message('IMAGE', { text: { body: 'x' } }))).toThrow(/does not match kind IMAGE/);
  });

  it('sends MM Lite templates through the marketing messages endpoint', () => {
    expect(messagesEndpoint(message('TEMPLATE', { template: { name: 'a', language: 'en', is_mm_lite: true } }))).toBe(
      'marketing_messages',
    );
    expect(messagesEndpoint(message('TEMPLATE', { template: { name: 'a', language: 'en' } }))).toBe('messages');
    expect(messagesEndpoint(message('TEXT', { text: { body: 'a' } }))).toBe('messages');
  });
});

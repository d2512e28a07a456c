import { OutboundMessage } from '@app/contracts';
import { toMaxRequest } from '../max/max.connector';
import { toTelegramRequest } from '../telegram/telegram.connector';
import { toGraphMessage } from '../whatsapp/whatsapp-message.mapper';

const message = (channel: 'whatsapp' | 'telegram' | 'max', interactive: never): OutboundMessage => ({
  id: 'm-1',
  channel,
  priority: 'normal' as never,
  category: 'SERVICE',
  user_id: 'u',
  app_id: null,
  sender: { connection_id: 'c' },
  recipient: channel === 'whatsapp' ? '5511999990001' : '4242',
  kind: 'INTERACTIVE',
  content: { interactive },
  queued_at: 0,
});

describe('interactive content on each channel', () => {
  const buttons = {
    type: 'buttons',
    text: 'Confirm <now>?',
    buttons: [{ id: 'yes', title: 'Yes' }],
    header: { type: 'document', url: 'https://a.example/r.pdf' },
  } as never;

  it('WhatsApp: an interactive message with reply buttons and a media header', () => {
    expect(toGraphMessage(message('whatsapp', buttons))).toMatchObject({
      type: 'interactive',
      interactive: {
        type: 'button',
        header: { type: 'document', document: { link: 'https://a.example/r.pdf' } },
        body: { text: 'Confirm <now>?' },
        action: { buttons: [{ type: 'reply', reply: { id: 'yes', title: 'Yes' } }] },
      },
    });
  });

  it('Telegram: a captioned document with an inline keyboard; a location request as a reply keyboard', () => {
    expect(toTelegramRequest(message('telegram', buttons))).toEqual({
      method: 'sendDocument',
      text: 'Confirm &lt;now&gt;?',
      media: 'https://a.example/r.pdf',
      keyboard: [[{ text: 'Yes', callback_data: 'yes' }]],
    });
    const location = toTelegramRequest(message('telegram', { type: 'location_request', text: 'Where?' } as never));
    expect(location).toMatchObject({
      method: 'sendMessage',
      keyboard: [],
      replyKeyboard: { keyboard: [[{ text: 'Send location', request_location: true }]] },
    });
  });

  it('MAX: a file attachment then the inline keyboard; a Flow without a web form is its text', () => {
    expect(toMaxRequest(message('max', buttons))).toEqual({
      text: 'Confirm &lt;now&gt;?',
      media: { type: 'file', url: 'https://a.example/r.pdf' },
      keyboard: [[{ type: 'callback', text: 'Yes', payload: 'yes' }]],
    });
    const flow = { type: 'flow', text: 'Book', flow_id: '1', cta: 'Book', flow_token: 't' } as never;
    expect(toMaxRequest(message('max', flow))).toEqual({ text: 'Book', keyboard: [] });
  });
});
